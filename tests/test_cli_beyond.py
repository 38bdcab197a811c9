"""The command line's beyond-accuracy metrics: inputs, choices, JSON output and errors."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions
from rankmetrics.cli import main
from rankmetrics.io import read_attributes, read_interactions, read_run, read_truth
from rankmetrics.relevance import RelevanceMapping
from tests.helpers import MOVIES

MODELS = ("popularity", "personalized")
BEYOND = ("ndcg,coverage,gini,entropy,personalization,arp,aplt,aclt,novelty,serendipity,ild,"
          "categories,category_entropy,miscalibration")


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    runs = [arg for model in MODELS for arg in ("--run", str(MOVIES / f"{model}.parquet"))]
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--threshold", "4", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_line_gives_the_library_s_values(capsys):
    code, out, err = run_cli(capsys, "--metrics", BEYOND, "--cutoffs", "1,10",
                             "--interactions", MOVIES / "train.csv",
                             "--item-attributes", MOVIES / "items.csv",
                             "--popularity", "users", "--long-tail", "bottom_items")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert set(table["metric"]) == set(BEYOND.split(","))
    ev = evaluate(read_truth(MOVIES / "ground_truth.csv"),
                  {m: read_run(MOVIES / f"{m}.parquet") for m in MODELS},
                  relevance=RelevanceMapping.identity(4), max_cutoff=10,
                  interactions=read_interactions(MOVIES / "train.csv"),
                  item_attributes=read_attributes(MOVIES / "items.csv", key="item"),
                  beyond_options=BeyondOptions(popularity="users", long_tail="bottom_items"))
    expected = pd.concat([ev.summary(["ndcg"], [1, 10]),
                          ev.beyond.summary(BEYOND.split(",")[1:], [1, 10])])
    merged = table.merge(expected, on=["model", "metric", "cutoff"])
    assert len(merged) == len(table) == 2 * 2 * len(BEYOND.split(","))
    # (the CSV writes 10 significant digits)
    assert np.allclose(merged["value_x"], merged["value_y"], rtol=1e-9, atol=0)
    popularity = table[(table.model == "popularity") & (table.cutoff == 10)].set_index("metric")
    assert popularity.loc["personalization", "value"] == 0.0
    assert popularity.loc["coverage", "value"] == float(f"{10 / 1500:.10g}")


def test_json_states_the_choices(capsys):
    code, out, err = run_cli(capsys, "--metrics", "coverage,gini", "--cutoffs", "5",
                             "--format", "json", "--distribution", "recommended")
    assert code == 0, err
    document = json.loads(out)
    choices = document["beyond_accuracy"]
    assert choices["distribution"] == "recommended"
    assert choices["catalogue"].startswith("every item in any file")
    assert {row["metric"] for row in document["results"]} == {"coverage", "gini"}


def test_a_catalogue_file(capsys, tmp_path):
    catalogue = tmp_path / "catalogue.csv"
    catalogue.write_text("item\n" + "\n".join(f"m{n:04d}" for n in range(1, 3001)) + "\n")
    code, out, err = run_cli(capsys, "--metrics", "coverage", "--cutoffs", "10",
                             "--catalogue", catalogue)
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("model")
    assert table.loc["popularity", "value"] == float(f"{10 / 3000:.10g}")


def test_a_metric_without_its_input_names_the_flag(capsys):
    code, out, err = run_cli(capsys, "--metrics", "arp")
    assert code == 1 and "--metrics arp needs --interactions FILE" in err and out == ""
    code, _, err = run_cli(capsys, "--metrics", "ild", "--interactions", MOVIES / "train.csv")
    assert code == 1 and "--item-attributes" in err


def test_per_user_leaves_the_system_metrics_out(capsys):
    code, out, err = run_cli(capsys, "--metrics", "arp,coverage", "--cutoffs", "3",
                             "--interactions", MOVIES / "train.csv", "--per-user")
    assert code == 0, err
    assert "coverage have no value per user" in err
    assert set(pd.read_csv(io.StringIO(out))["metric"]) == {"arp"}


def test_a_bad_interactions_file_names_the_option(capsys, tmp_path):
    bad = tmp_path / "train.csv"
    bad.write_text("user,film\nu1,f1\n")
    code, _, err = run_cli(capsys, "--metrics", "arp", "--interactions", bad)
    assert code == 1 and f"--interactions {bad}" in err and "no item column" in err


def test_the_listing_has_the_beyond_accuracy_metrics():
    from rankmetrics.cli.metrics import metric_listing
    listing = json.loads(metric_listing("json"))
    assert {"coverage", "novelty", "personalization"} <= {row["name"] for row in listing}


def test_the_table_shows_counts_as_whole_numbers(capsys):
    code, out, err = run_cli(capsys, "--metrics", "ndcg,categories,arp", "--cutoffs", "10",
                             "--interactions", MOVIES / "train.csv",
                             "--item-attributes", MOVIES / "items.csv", "--format", "table")
    assert code == 0, err
    rows = {words[0]: words[2:] for words in map(str.split, out.splitlines())
            if words[:1] in (["ndcg"], ["categories"], ["arp"])}
    # the popularity model's ten films hold 12 genres between them; the personalized
    # model's lists a mean of some categories, with two decimals
    assert rows["categories"][0] == "12" and len(rows["categories"][1].split(".")[1]) == 2
    assert len(rows["arp"][0].split(".")[1]) == 2
    assert len(rows["ndcg"][0].split(".")[1]) == 4
