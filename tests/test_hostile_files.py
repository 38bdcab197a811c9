"""Files meant to break the readers: decompression bombs, pipes and devices, password-protected
zips, JSON nested beyond Python's recursion limit, and values that would be accepted wrongly
(ranks with fractions, NaN ids, lists of lists as ids).

Command-line cases run in a subprocess with a memory limit and a timeout (see
``tests/test_untrusted_input.py``), so a regression fails here instead of taking the machine
down or hanging CI. Bombs are built in the test from one compressed block repeated, so the
test itself stays small and fast.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import weakref
import zipfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import MAX_DECOMPRESSED_SIZE, parse_size, read_run, read_truth
from rankmetrics.io._source import Source
from tests import processes
from tests.helpers import REPO
from tests.test_untrusted_input import IO_FILES, cli, error_line

# 20 rows repeated: they compress about 250 times (tables compress 3 to 20 times).
ROWS = b"".join(b"u%d,i%d,%d\n" % (n, n * 7, n % 7) for n in range(20)) * 40_000


def gzip_bomb(path, size: int) -> None:
    """A .csv.gz holding ``size`` bytes of CSV rows: gzip members, each the same block."""
    block = gzip.compress(ROWS, compresslevel=9)
    with open(path, "wb") as out:
        out.write(gzip.compress(b"user,item,score\n"))
        for _ in range(size // len(ROWS)):
            out.write(block)


def zip_bomb(path, size: int) -> None:
    """A .zip whose one CSV holds ``size`` bytes of rows, written in chunks."""
    with (zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive,
          archive.open("rows.csv", "w", force_zip64=True) as member):
        member.write(b"user,item,rating\n")
        for _ in range(size // len(ROWS)):
            member.write(ROWS)


# ----- decompression bombs ---------------------------------------------------------------


def test_a_gzip_bomb_is_refused_before_it_fills_the_memory(tmp_path):
    bomb = tmp_path / "bomb.csv.gz"
    gzip_bomb(bomb, 2 << 30)
    assert bomb.stat().st_size < 20 << 20
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", bomb))
    assert "bomb.csv.gz" in line and "decompression bomb" in line and "100 times" in line


@pytest.mark.journey  # writes and reads back 512 MiB of rows
def test_a_zip_bomb_is_refused_before_it_fills_the_memory(tmp_path):
    bomb = tmp_path / "bomb.zip"
    zip_bomb(bomb, 512 << 20)
    line = error_line(cli("--truth", bomb, "--run", IO_FILES / "run.csv"))
    assert "bomb.zip" in line and "decompression bomb" in line


def test_the_dashboard_refuses_an_uploaded_bomb_with_a_message(tmp_path, monkeypatch):
    from dashboard.cached.inputs import read_file
    from dashboard.uploads import Uploads

    bomb = tmp_path / "bomb.csv.gz"
    gzip_bomb(bomb, 1 << 30)
    files = Uploads()
    big = gzip.compress(b"user,item,score\n" + ROWS)
    files.add([("bomb.csv.gz", bomb.read_bytes()), ("big.csv.gz", big)], None)
    loaded = read_file(files.runs[0])
    assert loaded.table is None and "decompression bomb" in loaded.error
    monkeypatch.setenv("RANKMETRICS_MAX_DECOMPRESSED_SIZE", "1M")
    loaded = read_file(files.runs[1])
    assert loaded.table is None and "more than 1 MiB" in loaded.error


def test_the_decompressed_size_limit_names_itself_and_how_to_raise_it(tmp_path):
    rows = b"user,item,score\n" + b"".join(b"u%d,i%d,0.%d\n" % (n, n * 7919, n)
                                           for n in range(100_000))
    path = tmp_path / "big.csv.gz"
    path.write_bytes(gzip.compress(rows))
    assert len(rows) > 2 << 20
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", path,
                          "--max-decompressed-size", "2M"))
    assert "big.csv.gz" in line and "2 MiB" in line and "--max-decompressed-size" in line
    assert "RANKMETRICS_MAX_DECOMPRESSED_SIZE" in line
    assert read_run(path, max_decompressed_size="8M").n_rows == 100_000


def test_the_limit_comes_from_the_environment_for_the_dashboard(monkeypatch):
    data = gzip.compress(b"user,item,score\n" + b"".join(b"u1,i%d,0.5\n" % n
                                                          for n in range(300_000)))
    with pytest.raises(DataError, match="more than 1 MiB"):
        read_run(io.BytesIO(data), name="env.csv.gz", max_decompressed_size=1 << 20)
    monkeypatch.setenv("RANKMETRICS_MAX_DECOMPRESSED_SIZE", "1M")
    with pytest.raises(DataError, match="more than 1 MiB"):
        read_run(data, name="env.csv.gz")
    monkeypatch.setenv("RANKMETRICS_MAX_DECOMPRESSED_SIZE", "8M")
    assert read_run(data, name="env.csv.gz").n_rows == 300_000


def test_a_parquet_file_inside_gzip_is_bounded_too(tmp_path):
    with pytest.raises(DataError, match="more than 1 KiB"):
        read_truth(gzip.compress(b"PAR1" + bytes(4096)), name="t.parquet.gz",
                   max_decompressed_size=1024)


def test_sizes_are_read_in_the_units_people_write():
    assert parse_size("4G", "x") == 4 << 30 == MAX_DECOMPRESSED_SIZE
    assert parse_size("500MiB", "x") == 500 << 20
    assert parse_size("1.5k", "x") == 1536
    assert parse_size("1000", "x") == 1000
    with pytest.raises(ValueError, match="--max-decompressed-size.*'lots'"):
        parse_size("lots", "--max-decompressed-size")
    with pytest.raises(ValueError, match="max_decompressed_size.*0"):
        read_run(b"user,item,score\nu,i,1\n", name="r.csv", max_decompressed_size=0)


def test_a_read_returns_once_pyarrow_has_let_go_of_the_content(monkeypatch):
    """pyarrow's threads can still hold a stream or bytes they read after the table came
    back, and let go of them under the GIL: at the interpreter's exit that aborts the process.
    So every read waits until pyarrow has let go (about half of them would return before)."""
    streams = []
    opened = Source.open

    def kept(self):
        stream = opened(self)
        streams.append(weakref.ref(stream))
        return stream

    monkeypatch.setattr(Source, "open", kept)
    rows = b"user,item,score\n" + b"".join(b"u%d,i%d,0.%d\n" % (n % 500, n, n % 10)
                                           for n in range(100_000))
    compressed = gzip.compress(rows)
    for _ in range(10):
        assert read_run(compressed, name="run.csv.gz").n_rows == 100_000
        with pytest.raises(DataError, match="more than 1 MiB"):
            read_run(compressed, name="run.csv.gz", max_decompressed_size="1M")
        before = sys.getrefcount(rows)
        assert read_run(rows, name="run.csv").n_rows == 100_000
        assert sys.getrefcount(rows) == before
    assert streams and not [stream for stream in streams if stream() is not None]


@pytest.mark.journey
def test_a_program_that_ends_right_after_a_refused_file_exits_cleanly(tmp_path):
    """The program above, many times over, two at a time per core: each reads a zip refused
    past its limit and ends at once, as the command line does. None may abort."""
    path = tmp_path / "truth.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("truth.csv", b"user,item,rating\n" + ROWS[:3 << 20])
    program = ("import sys; from rankmetrics.io import read_truth; "
               "read_truth(sys.argv[1], max_decompressed_size='2M')")
    aborted = []
    for _ in range(10):
        batch = [processes.start([sys.executable, "-c", program, path], cwd=REPO,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for _ in range(4)]
        for child in batch:
            _, stderr = child.communicate(timeout=120)
            processes.stop(child)
            assert b"more than 2 MiB" in stderr
            if child.returncode != 1:
                aborted.append((child.returncode, stderr.decode()[-300:]))
    assert not aborted


# ----- pipes, devices, password-protected zips, deep JSON ---------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_instead_of_waiting_forever(tmp_path):
    fifo = tmp_path / "run.csv"
    os.mkfifo(fifo)
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", fifo))
    assert str(fifo) in line and "not a regular file" in line


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused():
    line = error_line(cli("--truth", "/dev/zero", "--run", IO_FILES / "run.csv"))
    assert "/dev/zero" in line and "not a regular file" in line


def test_a_password_protected_zip_is_refused_naming_it(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("run.csv", b"user,item,score\nu1,i1,0.5\n")
    data = bytearray(buffer.getvalue())
    central = data.index(b"PK\x01\x02")
    data[6] |= 0x1  # the encryption bit, as zip -P sets it: in the local header
    data[central + 8] |= 0x1  # and in the central directory
    path = tmp_path / "secret.zip"
    path.write_bytes(bytes(data))
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", path))
    assert "secret.zip" in line and "password" in line


def test_json_nested_too_deep_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / "deep.jsonl"
    record = json.dumps({"user": "u1", "item": "i1", "score": 1.0})
    path.write_text(record + "\n" + '{"user": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(DataError) as caught:
        read_run(path)
    assert str(caught.value).startswith("deep.jsonl, row 2: ")
    assert "nested too deeply" in str(caught.value)
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", path))
    assert "deep.jsonl" in line and "nested" in line


# ----- values that must not pass silently -------------------------------------------------


def parquet_bytes(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def test_a_rank_with_a_fraction_is_refused_naming_file_row_and_column(tmp_path):
    path = tmp_path / "ranked.csv"
    path.write_text("user,item,rank\nu1,a,1\nu1,b,1.5\nu1,c,3\n")
    line = error_line(cli("--truth", IO_FILES / "truth.csv", "--run", path))
    assert "ranked.csv, row 3, column 'rank'" in line and "whole numbers" in line
    assert "1.5" in line


def test_ranks_below_one_are_still_reported_first():
    with pytest.raises(DataError, match="row 3, column 'rank': ranks must be 1 or more"):
        read_run(b"user,item,rank\nu1,a,1\nu1,b,0\nu1,c,2.5\n", name="r.csv")


@pytest.mark.parametrize("role", ["user", "item"])
def test_nan_in_a_float_id_column_is_a_missing_id_not_nan(role):
    columns = {"user": [1.0, 2.0, 3.0], "item": [10.0, 20.0, 30.0], "rating": [1, 1, 1]}
    columns[role][1] = np.nan
    with pytest.raises(DataError) as caught:
        read_truth(parquet_bytes(pa.table(columns)), name="floats.parquet")
    assert str(caught.value).startswith(f"floats.parquet, row 2, column '{role}': 1 row has no ")


def test_lists_of_lists_are_refused_as_ids():
    table = pa.table({"user": ["u1", "u2"], "items": [[["a"], ["b"]], [["c"]]]})
    with pytest.raises(DataError) as caught:
        read_run(parquet_bytes(table), name="nested.parquet")
    message = str(caught.value)
    assert message.startswith("nested.parquet, column 'items': the column holds lists of lists")
    assert "cannot serve as ids" in message


def test_a_list_in_an_id_column_is_refused():
    table = pa.table({"user": [["u1"]], "item": ["a"], "score": [1.0]})
    with pytest.raises(DataError, match=r"column 'user': the column holds lists or records"):
        read_run(parquet_bytes(table), name="listed.parquet")
