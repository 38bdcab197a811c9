"""Where a table's bytes come from: a path, an uploaded file or raw bytes, maybe gzip or zip.

A :class:`Source` opens a fresh binary stream of the *decompressed* content as often as needed
(once to peek at the head, once to read everything), and knows the names used in messages.

A few megabytes of gzip or zip can hold gigabytes (a "decompression bomb"), enough to take a
shared server down. Decompressed bytes are therefore counted as they are read, and reading
stops with a :class:`DataError` once they pass a limit (:data:`MAX_DECOMPRESSED_SIZE`, or the
environment variable ``RANKMETRICS_MAX_DECOMPRESSED_SIZE``, or ``max_decompressed_size=``), or
once the content grows more than :data:`BOMB_RATIO` times the compressed bytes read, which
real tables never do.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import os
import re
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
#: Any other extension read as one: at most five letters or digits, a letter among them.
SHORT_EXTENSION = re.compile(r"\.(?=[A-Za-z0-9]{0,4}[A-Za-z])[A-Za-z0-9]{1,5}")
EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
SAVE_AS_CSV = (
    "Save the sheet as CSV first (Excel: File > Save As > 'CSV UTF-8 (Comma delimited)') "
    "and load that file."
)
SUPPORTED = (
    "rankmetrics reads CSV or TSV text (optionally .gz or .zip), Parquet, JSON Lines, and "
    "TREC run / qrels files."
)
#: Default most bytes a compressed file may hold once decompressed (8x the dashboard's
#: 500 MB upload limit).
MAX_DECOMPRESSED_SIZE = 4 << 30
LIMIT_VARIABLE = "RANKMETRICS_MAX_DECOMPRESSED_SIZE"
#: Content growing more than this many times the compressed bytes read is refused, once past
#: RATIO_FROM bytes (tables compress 3 to 20 times; bombs about 1000 times).
BOMB_RATIO = 100
RATIO_FROM = 32 << 20
SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
SIZE = re.compile(r"\s*(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
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
    limit: int = MAX_DECOMPRESSED_SIZE

    @property
    def stem(self) -> str:
        """The file name without its compression extension and its table extension: a known
        one (``.csv``, ``.parquet``...) or any short one holding a letter, as TREC and
        RecBole files have (``results.test``, ``ml-100k.inter``, ``u.data``); ``model_v1.5``
        keeps its ``.5``."""
        name = self.file
        base, ext = os.path.splitext(name)
        if base and ext.lower() in COMPRESSED_SUFFIXES:
            name = base
        base, ext = os.path.splitext(name)
        if base and (ext.lower() in TABLE_SUFFIXES or SHORT_EXTENSION.fullmatch(ext)):
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

    def open(self) -> IO[bytes]:
        """A new binary stream of the decompressed content; close it when done.

        Compressed content is counted as it is read and refused past the limits (see above).
        """
        if self.compression is None:
            return self.open_raw()
        raw = self.open_raw()
        try:
            if self.compression == "gzip":
                inner: io.BufferedIOBase | IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb")
                start = 0
            else:
                with zipfile.ZipFile(raw) as archive:  # leaves raw open: the member reads it
                    info = archive.getinfo(self.member or "")
                    inner, start = archive.open(info), info.header_offset
        except BaseException:
            raw.close()
            raise
        return io.BufferedReader(_Counted(self, inner, raw, start), buffer_size=1 << 20)

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

    def too_large(self) -> DataError:
        return DataError(
            f"the {self.compression} file holds more than {show_size(self.limit)} once "
            "decompressed, the most read from a compressed file (a limit that keeps a file "
            "from filling the memory). If the file is genuine, raise the limit: "
            "--max-decompressed-size on the command line, max_decompressed_size= in Python, "
            f"or the environment variable {LIMIT_VARIABLE} (e.g. 8G) for the dashboard.",
            file=self.file,
        )

    def bomb(self, size: int, compressed: int) -> DataError:
        return DataError(
            f"the {self.compression} file grows more than {BOMB_RATIO} times when decompressed "
            f"({show_size(compressed)} became {show_size(size)} and counting), which tables "
            "never do: it looks made to fill the memory (a 'decompression bomb'), so reading "
            "stopped. If it is a genuine table, decompress it and load the plain file.",
            file=self.file,
        )

    def damaged(self, exc: BaseException) -> DataError:
        return DataError(
            f"the {self.compression} file is damaged or was cut short while copying ({exc}), so "
            "it cannot be decompressed. Download or export it again.",
            file=self.file,
        )


class _Counted(io.RawIOBase):
    """A decompressed stream that counts its bytes and stops at its source's limits.

    ``raw`` is the compressed file being read and ``start`` where the content begins in it,
    so ``raw.tell() - start`` is how many compressed bytes were used so far. Past a limit the
    stream ends, and closing it raises the DataError: readers run in pyarrow's threads, which
    must see a plain end of file, not an exception.
    """

    def __init__(self, src: Source, inner: io.BufferedIOBase | IO[bytes], raw: IO[bytes],
                 start: int) -> None:
        super().__init__()
        self.src, self.inner, self.raw, self.start = src, inner, raw, start
        self.size = 0
        self.refused: DataError | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.refused is not None:
            return 0
        count = self.inner.readinto(buffer)  # type: ignore[union-attr]
        self.size += count
        compressed = max(self.raw.tell() - self.start, 1)
        if self.size > self.src.limit:
            self.refused = self.src.too_large()
        elif self.size > RATIO_FROM and self.size > BOMB_RATIO * compressed:
            self.refused = self.src.bomb(self.size, compressed)
        return 0 if self.refused is not None else count

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.inner.close()
        finally:
            self.raw.close()
            super().close()
        if self.refused is not None:
            raise self.refused


def decompressed_limit(value: int | str | None) -> int:
    """The most bytes read from a compressed file: ``value`` (bytes, or text such as "8G"),
    else the environment variable RANKMETRICS_MAX_DECOMPRESSED_SIZE, else the default."""
    if value is None:
        text = os.environ.get(LIMIT_VARIABLE, "").strip()
        return parse_size(text, LIMIT_VARIABLE) if text else MAX_DECOMPRESSED_SIZE
    if isinstance(value, str):
        return parse_size(value, "max_decompressed_size")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            "max_decompressed_size must be a number of bytes of 1 or more, or text such as "
            f"'8G'. Got {value!r}."
        )
    return value


def parse_size(text: str, what: str) -> int:
    """A size such as ``4G``, ``500M``, ``1.5GiB`` or ``1000000`` (bytes) in bytes."""
    match = SIZE.fullmatch(text)
    size = float(match.group(1)) * SIZE_UNITS[match.group(2).lower()] if match else 0
    if size < 1:
        raise ValueError(
            f"{what} must be a size such as 8G, 500M or 1000000 (bytes) of at least 1 byte. "
            f"Got {text!r}."
        )
    return int(size)


def show_size(size: int) -> str:
    """``4 GiB``, ``1.5 MiB``, ``300 bytes``."""
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if size >= unit:
            return f"{size / unit:.4g} {name}"
    return f"{size} bytes"


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
        if not path.is_file():
            raise DataError(
                "this is not a regular file but a pipe, device or socket, which rankmetrics "
                "does not read (it could wait forever). Save the data to a file and load that.",
                file=str(source),
            )
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
            members = [
                info
                for info in archive.infolist()
                if not info.is_dir()
                and not info.filename.startswith("__MACOSX/")
                and not PurePath(info.filename).name.startswith(("._", ".DS_Store"))
            ]
    except zipfile.BadZipFile as exc:
        raise src.damaged(exc) from exc
    names = [info.filename for info in members]
    if any(info.flag_bits & 0x1 for info in members):  # bit 0: encrypted
        raise DataError(
            "the zip archive is protected by a password, which rankmetrics cannot ask for. "
            "Extract the file with its password and load it, or zip it again without one.",
            file=src.file,
        )
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


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex), read in 4 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()
