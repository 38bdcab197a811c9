"""Where a table's bytes come from: a path, an uploaded file or raw bytes, maybe gzip or zip.

A :class:`Source` opens a fresh binary stream of the *decompressed* content as often as needed
(once to peek at the head, once to read everything), and knows the names used in messages.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import IO, Protocol, runtime_checkable

from rankmetrics.errors import DataError

HEAD_BYTES = 64 * 1024

COMPRESSED_SUFFIXES = {".gz": "gzip", ".gzip": "gzip", ".zip": "zip"}
TABLE_SUFFIXES = (
    ".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq", ".parq", ".jsonl", ".ndjson", ".json",
    ".run", ".qrels", ".trec", ".res",
)
EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
SAVE_AS_CSV = (
    "Save the sheet as CSV first (Excel: File > Save As > 'CSV UTF-8 (Comma delimited)') "
    "and load that file."
)
SUPPORTED = (
    "rankmetrics reads CSV or TSV text (optionally .gz or .zip), Parquet, JSON Lines, and "
    "TREC run / qrels files."
)
# Errors raised while decompressing a damaged or truncated gzip / zip stream.
DECOMPRESSION_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, zipfile.BadZipFile)


@dataclass
class Source:
    """One input file, with its names and a way to open its decompressed content.

    ``file`` is the name used in messages (``model_a.csv.gz``), ``inner`` the name of the
    content once decompressed (``model_a.csv``; for a zip, its member), ``stem`` the display
    name (``model_a``).
    """

    file: str
    inner: str
    compression: str | None
    path: Path | None = None
    data: bytes | None = None
    member: str | None = None

    @property
    def stem(self) -> str:
        """The file name without its compression and table extensions."""
        name = self.file
        for known in (COMPRESSED_SUFFIXES, TABLE_SUFFIXES):
            base, ext = os.path.splitext(name)
            if base and ext.lower() in known:
                name = base
        return name

    @property
    def suffix(self) -> str:
        """The content's extension in lower case (``.csv``), "" when there is none."""
        return PurePath(self.inner).suffix.lower()

    def open_raw(self) -> IO[bytes]:
        if self.path is not None:
            return open(self.path, "rb")
        return io.BytesIO(self.data or b"")

    def open(self) -> IO[bytes] | gzip.GzipFile:
        """A new binary stream of the decompressed content; close it when done."""
        if self.compression == "gzip":
            if self.path is not None:
                return gzip.open(self.path, "rb")
            return gzip.GzipFile(fileobj=io.BytesIO(self.data or b""), mode="rb")
        if self.compression == "zip":
            archive = zipfile.ZipFile(self.path if self.path is not None else self.open_raw())
            member = archive.open(self.member or "")
            archive.close()  # the member keeps the underlying file open until it is closed
            return member
        return self.open_raw()

    def read_head(self, size: int = HEAD_BYTES) -> bytes:
        """The first ``size`` bytes of the decompressed content."""
        try:
            with self.open() as stream:
                return stream.read(size)
        except DECOMPRESSION_ERRORS as exc:
            raise self.damaged(exc) from exc

    def read_all(self) -> bytes:
        """The whole decompressed content (used for Parquet inside gzip / zip)."""
        try:
            with self.open() as stream:
                return stream.read()
        except DECOMPRESSION_ERRORS as exc:
            raise self.damaged(exc) from exc

    def damaged(self, exc: BaseException) -> DataError:
        return DataError(
            f"the {self.compression} file is damaged or was cut short while copying ({exc}), so "
            "it cannot be decompressed. Download or export it again.",
            file=self.file,
        )


@runtime_checkable
class _Uploaded(Protocol):
    """An uploaded file (Streamlit's ``UploadedFile``, a ``BytesIO``): its content at once."""

    def getvalue(self) -> bytes | str: ...


@runtime_checkable
class _Stream(Protocol):
    """An open file: its content by reading it."""

    def read(self) -> bytes | str: ...


def resolve(source: object, name: str | None) -> tuple[Source, str]:
    """Turn what the caller passed into a :class:`Source` and its display name.

    ``source`` is a path, an object with ``.name`` and ``.getvalue()`` / ``.read()`` (a
    Streamlit ``UploadedFile``, a ``BytesIO`` with a name), or raw ``bytes`` together with
    ``name`` (the file name, whose extension helps detect the format).
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise DataError(
                "there is no such file. Check the path and the working directory.",
                file=str(source),
            )
        if path.is_dir():
            raise DataError("this is a folder, not a file.", file=str(source))
        src = _classify(path.name, path=path, data=None)
        return src, name or src.stem
    if isinstance(source, (bytes, bytearray, memoryview)):
        if not name:
            raise ValueError(
                "Reading raw bytes needs name= (the file name, e.g. name='model_a.csv'), "
                "used in messages and to recognise the format."
            )
        src = _classify(PurePath(name).name, path=None, data=bytes(source))
        return src, src.stem
    if isinstance(source, (_Uploaded, _Stream)):
        data = source.getvalue() if isinstance(source, _Uploaded) else source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        own_name = PurePath(str(getattr(source, "name", "") or "")).name
        if not (own_name or name):
            raise ValueError(
                "The file object has no .name: pass name= (the file name, e.g. 'model_a.csv')."
            )
        src = _classify(own_name or PurePath(str(name)).name, path=None, data=bytes(data))
        return src, (name if own_name and name else src.stem)
    raise TypeError(
        "source must be a path, an uploaded file (an object with .name and .read()), or "
        f"bytes with name=. Got {type(source).__name__}."
    )


def _classify(file_name: str, *, path: Path | None, data: bytes | None) -> Source:
    """Recognise compression (gzip, zip) and spreadsheets by the file's first bytes."""
    if data is not None:
        magic = data[:4]
    else:
        with open(path, "rb") as handle:  # type: ignore[arg-type]
            magic = handle.read(4)
    lower = file_name.lower()
    if lower.endswith(EXCEL_SUFFIXES) or magic == b"\xd0\xcf\x11\xe0":
        raise DataError(f"this is a spreadsheet workbook, not a table file. {SAVE_AS_CSV}",
                        file=file_name)
    src = Source(file=file_name, inner=file_name, compression=None, path=path, data=data)
    if magic[:2] == b"\x1f\x8b":
        src.compression = "gzip"
        src.inner = _strip_suffix(file_name, (".gz", ".gzip"))
    elif magic[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        src.compression = "zip"
        src.member = _zip_member(src)
        src.inner = PurePath(src.member).name
    return src


def _strip_suffix(file_name: str, suffixes: tuple[str, ...]) -> str:
    for suffix in suffixes:
        if file_name.lower().endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


def _zip_member(src: Source) -> str:
    try:
        with zipfile.ZipFile(src.open_raw()) as archive:
            names = [
                info.filename
                for info in archive.infolist()
                if not info.is_dir()
                and not info.filename.startswith("__MACOSX/")
                and not PurePath(info.filename).name.startswith(("._", ".DS_Store"))
            ]
    except zipfile.BadZipFile as exc:
        raise src.damaged(exc) from exc
    if any(n in ("[Content_Types].xml", "xl/workbook.xml", "content.xml") for n in names):
        raise DataError(f"this is a spreadsheet workbook, not a table file. {SAVE_AS_CSV}",
                        file=src.file)
    if not names:
        raise DataError("the zip archive holds no file.", file=src.file)
    if len(names) > 1:
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise DataError(
            f"the zip archive holds {len(names)} files ({shown}); it must hold exactly one "
            "table. Load the file itself, or zip only that one file.",
            file=src.file,
        )
    return names[0]


def check_text(head: bytes, src: Source, *, complete: bool) -> str:
    """Decode the head of a text file, or raise a DataError saying why it is not UTF-8 text.

    ``complete`` says whether ``head`` is the whole file (else its last character may be cut).
    """
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(
            "the file is UTF-16 text (Excel's 'Unicode Text' saves it that way); rankmetrics "
            "reads UTF-8. Re-save it as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)').",
            file=src.file,
        )
    if looks_binary(head):
        raise DataError(
            f"the file holds binary data, not text, and is no table format known here. "
            f"{SUPPORTED} Check that the right file was chosen.",
            file=src.file,
        )
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        return decoder.decode(head, final=complete)
    except UnicodeDecodeError as exc:
        line = head[: exc.start].count(b"\n") + 1
        text = head.split(b"\n")[line - 1]
        raise not_utf8(src, line, text, head[exc.start]) from None


def looks_binary(head: bytes) -> bool:
    """NUL bytes, or more than 1% of control characters that text files never hold."""
    sample = head[:4096]
    if b"\x00" in sample:
        return True
    controls = sum(1 for byte in sample if byte < 32 and byte not in (9, 10, 12, 13))
    return controls > 0.01 * max(len(sample), 1)


def not_utf8(src: Source, line: int, text: bytes, byte: int) -> DataError:
    shown = text.decode("latin-1").rstrip("\r\n")
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return DataError(
        f"the file is not UTF-8 text: this line holds the byte 0x{byte:02x}, which UTF-8 does "
        f"not allow there (read as Latin-1 the line is '{shown}'). The file was probably saved "
        "in an older encoding such as Windows-1252 (Excel's plain 'CSV' does that). Re-save it "
        "as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)') and load it again.",
        file=src.file,
        row=line,
    )


def find_bad_line(src: Source) -> DataError:
    """Locate the first line that is not UTF-8 (after a parser tripped over it)."""
    with src.open() as stream:
        for number, raw_line in enumerate(stream, start=1):
            try:
                raw_line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                return not_utf8(src, number, raw_line, raw_line[exc.start])
    return DataError("the file is not UTF-8 text.", file=src.file)
