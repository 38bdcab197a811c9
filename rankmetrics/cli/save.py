"""What ``rankmetrics evaluate --save`` keeps besides the evaluation: the metrics and cutoffs
every user's values are saved at, and the fingerprint (rows, users, SHA-256) of each input
file, which the dashboard and ``report --bundle`` show. Both engines save through here."""

from __future__ import annotations

import argparse
import errno
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rankmetrics.beyond import CATALOGUE
from rankmetrics.bundle import Fingerprint
from rankmetrics.cli.options import DEFAULT_CUTOFFS, run_name_and_path
from rankmetrics.io import file_sha256
from rankmetrics.metrics import MAIN_METRICS


@contextmanager
def saving(path: str) -> Iterator[None]:
    """Save with a failure said in one sentence naming ``--save`` (a full disk in words)."""
    try:
        yield
    except OSError as error:
        reason = ("there is no space left on the device: free some space or save "
                  "elsewhere" if error.errno in (errno.ENOSPC, errno.EDQUOT) else
                  error.strerror or str(error))
        raise ValueError(f"Could not save --save {path}: {reason}.") from None


def saved_metrics(metrics: Sequence[str]) -> list[str]:
    """What ``--save`` keeps: every main metric (each page of the dashboard draws them) and
    the others asked for with ``--metrics``."""
    return list(dict.fromkeys([*MAIN_METRICS, *metrics]))


def saved_cutoffs(args: argparse.Namespace, cutoffs: list[int]) -> list[int]:
    """The cutoffs ``--save`` keeps every user's values at: the default ones, and those of
    ``--cutoffs``."""
    return [*DEFAULT_CUTOFFS, *(cutoffs if args.cutoffs else [])]


def file_fingerprints(truth_path: str, truth, runs: dict, specs: list[str]
                      ) -> dict[str, Fingerprint]:
    """Rows, users and the SHA-256 of each input file, for a saved evaluation."""
    paths = {"ground_truth": (truth_path, truth)}
    for spec, (name, run) in zip(specs, runs.items(), strict=True):
        paths[name] = (run_name_and_path(spec)[1], run)
    return {name: Fingerprint(table.n_rows, table.n_users, file_sha256(path), "sha256 of the file")
            for name, (path, table) in paths.items()}


def beyond_file_fingerprints(args: argparse.Namespace, inputs: dict[str, Any]
                             ) -> dict[str, Fingerprint] | None:
    """Rows, users and the SHA-256 of each beyond-accuracy input file, for a saved
    evaluation (None: none was read)."""
    files = {"interactions": (args.interactions, inputs.get("interactions")),
             "item_attributes": (args.item_attributes, inputs.get("item_attributes")),
             "catalogue": (args.catalogue if args.catalogue not in CATALOGUE else None,
                           inputs.get("catalogue"))}
    prints = {}
    for name, (path, read) in files.items():
        if path is None or read is None:
            continue
        rows, users = ((read.n_rows, read.n_users) if name == "interactions" else
                       (len(read.table), None) if name == "item_attributes" else
                       (len(read), None))
        prints[name] = Fingerprint(rows, users, file_sha256(path), "sha256 of the file")
    return prints or None

