"""A file of a data set and how to read it: the identity every cache is keyed on."""

from __future__ import annotations

import hashlib
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


def digest(data: bytes) -> str:
    """A fingerprint of a file's content (SHA-256: the fastest of hashlib's hashes on
    processors with SHA instructions, about 2 GB/s)."""
    return hashlib.sha256(data).hexdigest()

