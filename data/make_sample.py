"""Write data/sample/: three small CSV files to try an upload with (the first 200 users of the
movies demo, each model's top 20), readable in any spreadsheet.

    python data/make_sample.py
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parent
USERS = 200
TOP = 20
MODELS = ("personalized", "popularity")


def main() -> None:
    out = DATA / "sample"
    out.mkdir(exist_ok=True)
    truth = pd.read_csv(DATA / "movies" / "ground_truth.csv")
    users = sorted(truth["user"].unique())[:USERS]
    truth[truth["user"].isin(users)].to_csv(out / "ratings.csv", index=False)
    for model in MODELS:
        run = pd.read_parquet(DATA / "movies" / f"{model}.parquet")
        run = run[run["user"].isin(users)]
        top = run.sort_values(["user", "score"], ascending=[True, False]).groupby("user").head(TOP)
        top.round({"score": 4}).to_csv(out / f"{model}.csv", index=False)


if __name__ == "__main__":
    main()
