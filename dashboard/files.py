"""A file of a data set and how to read it: the identity every cache is keyed on."""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FileSpec:
    """One file of a data set and how to read it; ``token`` is its cache key.

    ``kind`` is ``run`` (a model's output) or ``truth``; ``name`` the model's name; the file's
    content is at ``path`` (demo files) or in ``data`` (uploads); ``columns`` and ``format``
    are what the user chose by hand (empty: detect them).
    """

    id: str
    kind: str
    file_name: str
    name: str
    digest: str
    columns: tuple[tuple[str, str], ...] = ()
    format: str | None = None
    path: str | None = None
    data: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def token(self) -> str:
        return f"{self.kind}|{self.file_name}|{self.digest}|{self.columns}|{self.format}"


#: One copy of each file's bytes for the whole server, by digest: sessions opening the same
#: workspace (or uploading the same file) hold one object between them. A copy no session
#: holds any more is forgotten at the next call.
_SHARED: dict[str, bytes] = {}
_SHARED_LOCK = threading.Lock()


def shared_content(content_digest: str, data: bytes | Callable[[], bytes]) -> bytes:
    """The server's one copy of the content ``content_digest`` names: the copy held already,
    else ``data`` (or what ``data()`` reads), kept as that copy."""
    with _SHARED_LOCK:
        # a copy only this dict holds: its reference and the call's
        for key in [key for key in _SHARED if sys.getrefcount(_SHARED[key]) <= 2]:
            del _SHARED[key]
        held = _SHARED.get(content_digest)
        if held is not None:
            return held
    value = data if isinstance(data, bytes) else data()
    with _SHARED_LOCK:
        return _SHARED.setdefault(content_digest, value)


def is_shared(content_digest: str) -> bool:
    """Whether the server holds a copy of the content already (a tab has it open)."""
    with _SHARED_LOCK:
        return content_digest in _SHARED


def digest(data: bytes) -> str:
    """A fingerprint of a file's content (SHA-256: the fastest of hashlib's hashes on
    processors with SHA instructions, about 2 GB/s)."""
    return hashlib.sha256(data).hexdigest()

