"""Damaged and changed bundles: every one is refused with one message naming the bundle and
the part (the library, the command line and the dashboard alike), and what a newer
rankmetrics may add to ``evaluation.json`` is ignored."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable

import pandas as pd
import pytest

from rankmetrics import DataError, evaluate
from rankmetrics.cli import main
from rankmetrics.evaluation import load_bundle
from tests.apptest import errors, go, ok, start

TRUTH = pd.DataFrame({"user": ["u1", "u2", "u3"], "item": ["a", "b", "c"], "rating": [1] * 3})
RUN = pd.DataFrame({"user": ["u1", "u1", "u2", "u3"], "item": ["a", "b", "b", "a"],
                    "score": [2, 1, 1, 1]})


@pytest.fixture(scope="module")
def members(tmp_path_factory) -> dict[str, bytes]:
    path = evaluate(TRUTH, {"m": RUN}, max_cutoff=3).save(
        tmp_path_factory.mktemp("saved") / "b.zip")
    with zipfile.ZipFile(path) as zipped:
        return {name: zipped.read(name) for name in zipped.namelist()}


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def edited(members: dict[str, bytes], change: Callable[[dict], None], *,
           keep_parts: bool = True) -> bytes:
    info = json.loads(members["evaluation.json"])
    change(info)
    if not keep_parts:
        info.pop("parts", None)
    return zipped({**members, "evaluation.json": json.dumps(info).encode()})


def test_an_intact_bundle_records_and_checks_its_parts(members):
    info = json.loads(members["evaluation.json"])
    assert set(info["parts"]) == set(members) - {"evaluation.json"}
    assert load_bundle(zipped(members)).models == ["m"]


def truncated_means(members):
    return {**members, "means.parquet": members["means.parquet"][:200]}


CASES = {
    "a truncated Parquet file": (
        lambda m: zipped(truncated_means(m)),
        "means.parquet is not the file that was saved"),
    "a truncated Parquet file of a bundle without checksums": (
        lambda m: edited(truncated_means(m), lambda info: None, keep_parts=False),
        "means.parquet could not be read"),
    "a Parquet file replaced by another": (
        lambda m: zipped({**m, "means.parquet": m["sample_truth.parquet"]}),
        "means.parquet is not the file that was saved"),
    "no per-user cutoffs": (
        lambda m: edited(m, lambda info: info.pop("per_user_cutoffs")),
        "evaluation.json has no 'per_user_cutoffs' (the cutoffs every user's values were "
        "saved at"),
    "max_cutoff as text": (
        lambda m: edited(m, lambda info: info.update(max_cutoff="lots")),
        "evaluation.json's 'max_cutoff' should be the largest K, a whole number from 1; it "
        "is 'lots'"),
    "user counts edited": (
        lambda m: edited(m, lambda info: info["user_counts"][0].update(users=999_999)),
        "says 999,999 users are averaged for the model 'm', but its per-user values hold 3"),
    "no models": (
        lambda m: edited(m, lambda info: info.update(models=[])),
        "'models' should be the models' names, a list of at least one"),
    "a cutoff above the largest K": (
        lambda m: edited(m, lambda info: info.update(per_user_cutoffs=[1, 50])),
        "per-user cutoffs [50] are above its largest K, 3"),
    "a member missing": (
        lambda m: zipped({name: content for name, content in m.items()
                          if name != "sample_runs.parquet"}),
        "sample_runs.parquet is missing from the bundle"),
}


def bad_crc(members: dict[str, bytes]) -> bytes:
    data = bytearray(zipped(members))
    start = data.find(b"PAR1", data.find(b"means.parquet"))  # inside the first member
    data[start + 10] ^= 0xFF
    return bytes(data)


CASES["a bad CRC"] = (bad_crc, "could not be read (Bad CRC-32")


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_bundle_is_one_message_naming_the_bundle_and_the_part(members, case):
    make, said = CASES[case]
    with pytest.raises(DataError) as raised:
        load_bundle(make(members))
    message = str(raised.value)
    assert message.startswith("uploaded bundle")
    assert said in message, message
    assert "Traceback" not in message and "<Buffer" not in message


@pytest.mark.parametrize("change", [
    lambda info: info["conventions"].update(tie_breaker="newer"),
    lambda info: info["inputs"]["m"].update(sha512="f" * 128),
    lambda info: info.update(written_on="a newer machine"),
])
def test_what_a_newer_version_adds_is_ignored(members, change):
    bundle = load_bundle(edited(members, change))
    assert bundle.models == ["m"] and bundle.inputs["m"].rows == 4


def test_the_command_line_names_the_bundle(members, tmp_path, capsys):
    path = tmp_path / "damaged.zip"
    path.write_bytes(edited(members, lambda info: info.update(max_cutoff="lots")))
    code = main(["report", "--bundle", str(path), "--output", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"rankmetrics: error: --bundle {path}")
    assert "'max_cutoff' should be the largest K" in err


@pytest.mark.parametrize("case", ["a truncated Parquet file", "user counts edited",
                                  "no per-user cutoffs"])
def test_the_dashboard_says_so_and_keeps_what_was_loaded(members, case):
    at = start("movies", "app_pages/data.py")
    at.file_uploader(key="bundle_upload").set_value(
        ("damaged.zip", CASES[case][0](members), "application/zip")).run()
    assert not at.exception
    assert any(CASES[case][1] in message for message in errors(at)), errors(at)
    go(at, "app_pages/compare.py")
    ok(at)
    assert at.session_state["dataset"] == "movies"  # the demo is still what is shown


@pytest.mark.parametrize("change, said", [
    (lambda info: info["conventions"].update(gain="cubic"), "The 'gain' argument must be"),
    (lambda info: info.update(relevance={"kind": "graded", "table": [[5, -1]]}),
     "a grade cannot be negative"),
    (lambda info: info.update(beyond={"metrics": ["coverage"]}),
     "beyond_means.parquet is missing from the bundle"),
])
def test_a_value_the_schema_lets_through_is_still_one_message(members, change, said):
    with pytest.raises(DataError) as raised:
        load_bundle(edited(members, change))
    message = str(raised.value)
    assert message.startswith("uploaded bundle") and said in message, message


def inflated(members: dict[str, bytes], rows: int = 2_000_000) -> bytes:
    """The bundle with a sample_truth.parquet declaring ``rows`` rows of zeros (16 MB
    uncompressed, a few KB on disk), its checksum made to match."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table({"user": pa.array(["u1"] * 1).take(pa.array([0] * rows)),
                             "zeros": pa.array([0] * rows, pa.int64())}), out)
    big = out.getvalue()
    info = json.loads(members["evaluation.json"])
    info["parts"]["sample_truth.parquet"] = hashlib.sha256(big).hexdigest()
    return zipped({**members, "sample_truth.parquet": big,
                   "evaluation.json": json.dumps(info).encode()})


def test_a_bundle_declaring_more_than_the_memory_allowed_is_refused_before_reading(members):
    data = inflated(members)
    assert len(data) < 1_000_000
    with pytest.raises(DataError) as raised:
        load_bundle(data, max_memory="20M")
    message = str(raised.value)
    assert message.startswith("uploaded bundle: reading this bundle's tables would take about")
    assert "more than the 20 MiB allowed" in message
    assert load_bundle(data, max_memory="1G").models == ["m"]  # within the limit, it opens


def test_the_dashboard_refuses_a_bundle_its_memory_cannot_take(members, monkeypatch):
    from dashboard.budget import BUDGET

    monkeypatch.setattr(BUDGET, "limit_bytes", 30 << 20)
    at = start("movies", "app_pages/data.py")
    at.file_uploader(key="bundle_upload").set_value(
        ("inflated.zip", inflated(members, rows=4_000_000), "application/zip")).run()
    assert not at.exception
    assert errors(at), "no message"
    assert at.session_state["dataset"] == "movies"


def test_an_archive_unpacking_past_the_memory_allowed_is_refused_before_reading(members,
                                                                             tmp_path):
    padded = dict(members)
    info = json.loads(members["evaluation.json"])
    padded["evaluation.json"] = (json.dumps(info) + " " * 3_000_000).encode()  # still JSON
    data = zipped(padded)
    with pytest.raises(DataError) as raised:
        load_bundle(data, max_memory="2M")
    message = str(raised.value)
    assert message.startswith("uploaded bundle: the archive would unpack to 3 MiB, more than "
                              "the 2 MiB allowed"), message
    assert load_bundle(data, max_memory="1G").models == ["m"]  # within the limit, it opens
    folder = tmp_path / "bundle"
    folder.mkdir()
    for name, content in padded.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    with pytest.raises(DataError, match="evaluation.json holds 3 MiB, more than the 2 MiB"):
        load_bundle(folder, max_memory="2M")
