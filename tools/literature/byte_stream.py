"""What the record readers use of a binary stream: an open file, or the ingest's wrappers around one (counting,
gunzipping, a sniffed first byte put back) that implement only these two methods."""

from __future__ import annotations

from typing import Protocol


class ByteStream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...
    def readline(self, size: int = -1, /) -> bytes: ...
