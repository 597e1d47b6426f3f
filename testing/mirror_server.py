"""A loopback file server for the faults ``python -m http.server`` cannot make: it honours HTTP Range requests
(as NLM's server does, so a partial download is continued), can cut a file's first transfer short (the
connection closes before the announced length), and can send slowly (so a process can be killed
mid-download). Directory listings and everything else are http.server's own.
"""

from __future__ import annotations

import os
import re
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BLOCK = 16 << 10
_RANGE = re.compile(r"bytes=(\d+)-$")


class MirrorServer:
    """Serves ``directory`` on a free loopback port (``base_url``); ``requests`` records (path, Range header)."""

    def __init__(self, directory: Path, cut: set[str] = frozenset(), seconds_per_block: float = 0.0):
        self.cut, self.seconds_per_block, self.requests = set(cut), seconds_per_block, []
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests.append((self.path, self.headers.get("Range")))
                local = Path(self.translate_path(self.path))
                if not local.is_file():
                    return super().do_GET()
                body = local.read_bytes()
                start = int(m[1]) if (m := _RANGE.match(self.headers.get("Range") or "")) else 0
                if start >= len(body) and start:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.end_headers()
                    return
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                self.send_header("Content-Length", str(len(body) - start))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                end = len(body)
                if local.name in server.cut:  # the first transfer of this file breaks off halfway
                    server.cut.discard(local.name)
                    end = start + (len(body) - start) // 2
                try:
                    for at in range(start, end, BLOCK):
                        self.wfile.write(body[at : min(at + BLOCK, end)])
                        self.wfile.flush()
                        time.sleep(server.seconds_per_block)
                except (BrokenPipeError, ConnectionResetError):
                    return
                if end < len(body):
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=os.fspath(directory)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> MirrorServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
