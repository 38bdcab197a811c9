"""The beyond-accuracy options of ``rankmetrics evaluate``: the training interactions, item
attributes and catalogue that coverage, popularity, novelty, diversity and the long-tail
metrics need, and their choices, read into what :func:`rankmetrics.evaluation.evaluate`
takes."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rankmetrics.beyond import (
    CATALOGUE,
    DISTANCE,
    DISTRIBUTION,
    EXPOSURE_GROUPS,
    EXPOSURE_WEIGHT,
    LONG_TAIL,
    POPULARITY,
    UNEXPECTEDNESS,
    UNSEEN_ITEMS,
    BeyondOptions,
)
from rankmetrics.cli.options import reading, warn
from rankmetrics.io import read_attributes, read_interactions
from rankmetrics.metrics import BEYOND_METRICS
from rankmetrics.results import BeyondResults


def add_beyond_options(ev: argparse.ArgumentParser) -> None:
    """The group "beyond accuracy": its files and choices."""
    beyond = ev.add_argument_group(
        "beyond accuracy", "Inputs and choices of coverage, gini, exposure_gini, entropy, "
        "personalization "
        "(need nothing more), arp, aplt, aclt, novelty, serendipity, recall_long_tail, "
        "ndcg_long_tail (need --interactions), ild, categories and category_entropy (need "
        "--item-attributes) and miscalibration (needs both)."
    )
    beyond.add_argument("--interactions", metavar="FILE",
                        help="training interactions: user and item columns (a rating or "
                        "timestamp column may be there), any format the ground truth can have")
    beyond.add_argument("--item-attributes", metavar="FILE",
                        help="item attributes: an item column and categories (one, or several "
                        "separated by | or ;) or numeric features")
    beyond.add_argument("--catalogue", metavar="auto|interactions|all|FILE", default="auto",
                        help="the items that could be recommended: a FILE with an item column, "
                        "or auto (default): the training interactions' items when given, else "
                        "every item in any file")
    beyond.add_argument("--popularity", choices=POPULARITY, default="interactions",
                        help="an item's popularity: its training interactions (default) or "
                        "the distinct users who interacted with it")
    beyond.add_argument("--long-tail", choices=LONG_TAIL, default="short_head",
                        help="short_head (default): the long tail is every item outside the "
                        "fewest most popular items holding --long-tail-share of the "
                        "popularity; bottom_items: the --long-tail-share least popular items")
    beyond.add_argument("--long-tail-share", type=float, default=0.8, metavar="SHARE",
                        help="in (0, 1), default 0.8")
    beyond.add_argument("--distribution", choices=DISTRIBUTION, default="catalogue",
                        help="Gini and entropy over the whole catalogue (default) or only "
                        "the catalogue's items recommended at least once")
    beyond.add_argument("--distance", choices=DISTANCE, default="auto",
                        help="ILD's distance: auto (default): Jaccard on categories, else "
                        "cosine on numeric features; hamming: the share of binary features "
                        "two items differ on (each category, or numeric columns of 0 and 1)")
    beyond.add_argument("--unexpectedness", choices=UNEXPECTEDNESS, default="cooccurrence",
                        help="what makes an item unexpected for serendipity: cooccurrence "
                        "(default): unlike the user's history, by the cosine of the training "
                        "users two items share; attributes: unlike it by the item attributes "
                        "(one minus ILD's distance); popularity: not among the K most popular "
                        "items")
    beyond.add_argument("--calibration-alpha", type=float, default=0.01, metavar="ALPHA",
                        help="miscalibration's smoothing of the list's category mix toward "
                        "the history's, in (0, 1), default 0.01")
    beyond.add_argument("--exposure-weight", choices=EXPOSURE_WEIGHT, default="geometric",
                        help="the attention rank k of a list gets, for exposure_gini and "
                        "--exposure-by: geometric (default): p^(k-1), p the "
                        "--exposure-patience; log: NDCG's 1/log2(k+1)")
    beyond.add_argument("--exposure-patience", type=float, default=0.85, metavar="P",
                        help="the geometric weight's p, in (0, 1), default 0.85 (LensKit's)")
    beyond.add_argument("--unseen-items", choices=UNSEEN_ITEMS, default="counted",
                        help="ARP and novelty on a recommended item no training interaction "
                        "holds: counted (default): popularity 0, seen once for novelty; "
                        "left_out: dropped, each user's mean over the items seen in training, "
                        "users with none at K left out of that K's mean (as Evidently)")
    beyond.add_argument("--exposure-by", choices=EXPOSURE_GROUPS, metavar="GROUPS",
                        help="also give each item group's share of each model's exposure "
                        "at the decision K next to its share of the catalogue and of the "
                        "relevant items: popularity (short head and long tail; needs "
                        "--interactions) or categories (needs --item-attributes); in the "
                        "table and JSON formats")


def beyond_inputs(args: argparse.Namespace, beyond: tuple[str, ...], limit: int | None,
                  interactions_columns: dict[str, str] | None = None) -> dict[str, Any]:
    """The beyond-accuracy inputs evaluate() takes, read from the files named (none when no
    beyond-accuracy metric is asked for and no evaluation is saved); the training
    interactions' columns as ``--columns interactions:...`` chose them."""
    if not beyond and not (args.save and beyond_files(args)) and not args.exposure_by:
        return {}
    needs = {"interactions": args.interactions, "attributes": args.item_attributes}
    for name in beyond:
        need = BEYOND_METRICS[name].needs
        missing = [flag for kind, flag in (("interactions", "--interactions"),
                                           ("attributes", "--item-attributes"))
                   if kind in need.split(" and ") and not needs[kind]]
        if need != "nothing" and missing:
            raise ValueError(f"--metrics {name} needs {' FILE and '.join(missing)} FILE.")
    inputs: dict[str, Any] = {"beyond_options": BeyondOptions(
        popularity=args.popularity, long_tail=args.long_tail,
        long_tail_share=args.long_tail_share, distribution=args.distribution,
        distance=args.distance, unexpectedness=args.unexpectedness,
        calibration_alpha=args.calibration_alpha, exposure_weight=args.exposure_weight,
        exposure_patience=args.exposure_patience, unseen_items=args.unseen_items)}
    if args.interactions:
        with reading(f"--interactions {args.interactions}", args.interactions,
                     which="interactions"):
            inputs["interactions"] = read_interactions(args.interactions,
                                                       columns=interactions_columns,
                                                       max_decompressed_size=limit)
        warn(inputs["interactions"].warnings, which="interactions")
    if args.item_attributes:
        with reading(f"--item-attributes {args.item_attributes}", args.item_attributes):
            inputs["item_attributes"] = read_attributes(args.item_attributes, key="item",
                                                        max_decompressed_size=limit)
        warn(inputs["item_attributes"].warnings)
    inputs["catalogue"] = args.catalogue
    if args.catalogue not in CATALOGUE:
        with reading(f"--catalogue {args.catalogue}", args.catalogue):
            listed = read_attributes(args.catalogue, key="item", max_decompressed_size=limit)
        inputs["catalogue"] = listed.ids.tolist()
    return inputs


def beyond_files(args: argparse.Namespace) -> list[str]:
    """The beyond-accuracy inputs given on the command line, as their flags."""
    return [flag for flag, given in (("--interactions", args.interactions),
                                     ("--item-attributes", args.item_attributes),
                                     ("--catalogue", args.catalogue != "auto")) if given]


def with_exposure(text: str, args: argparse.Namespace, beyond: BeyondResults,
                  cutoff: int) -> str:
    """The output with each item group's share of exposure at ``cutoff`` (``--exposure-by``):
    a table below the values, or an ``exposure`` entry of the JSON document."""
    shares = beyond.exposure(cutoff, args.exposure_by)
    if args.format == "json":
        document = json.loads(text)
        document["exposure"] = {
            "groups": args.exposure_by, "cutoff": cutoff,
            "weight": beyond.options.exposure_weight,
            **({"patience": beyond.options.exposure_patience}
               if beyond.options.exposure_weight == "geometric" else {}),
            "shares": json.loads(shares.to_json(orient="records", double_precision=15))}
        return json.dumps(document, indent=2) + "\n"
    wide = shares.pivot(index="group", columns="source", values="share")
    wide = wide.reindex(index=list(dict.fromkeys(shares["group"])),
                        columns=list(dict.fromkeys(shares["source"])))
    weight = ("p^(k-1), p = " f"{beyond.options.exposure_patience:g}"
              if beyond.options.exposure_weight == "geometric" else "1/log2(k+1)")
    return (f"{text}\nShare of exposure in the top {cutoff} by {args.exposure_by} "
            f"(rank k weighs {weight}), beside each group's share of the catalogue and of "
            f"the relevant items:\n"
            + wide.to_string(float_format=lambda v: f"{v:.1%}") + "\n")
