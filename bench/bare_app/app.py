"""A bare Streamlit app of the dashboard's shape, the yardstick of ``bench/bench_pages.py``:
ten pages under ``st.navigation``, each a title, a line of text, a sidebar with three controls,
one table and six Plotly line charts, and nothing cached or computed beyond that.

    streamlit run bench/bare_app/app.py
"""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

PAGES = ["Data", "Compare models", "Users", "Significance", "Head-to-head", "Segments",
         "Beyond accuracy", "Metrics explained", "Playground", "Choosing K"]
CHARTS = 6
MODELS = 3
CUTOFFS = 20


def page(title: str, seed: int):
    def draw() -> None:
        st.title(title)
        st.markdown("A table and six charts, as each of the dashboard's pages holds.")
        rng = np.random.default_rng(seed)
        table = pd.DataFrame(rng.random((MODELS, 8)), columns=[f"metric {c}" for c in range(8)],
                             index=[f"model {m}" for m in range(MODELS)])
        st.dataframe(table)
        columns = st.columns(2)
        for chart in range(CHARTS):
            figure = go.Figure([go.Scatter(x=list(range(1, CUTOFFS + 1)),
                                           y=np.sort(rng.random(CUTOFFS)),
                                           mode="lines+markers", name=f"model {m}")
                                for m in range(MODELS)])
            figure.update_layout(title=f"chart {chart + 1}", height=320)
            columns[chart % 2].plotly_chart(figure, key=f"chart{chart}")
    return draw


navigation = st.navigation([
    st.Page(page(title, seed), title=title, url_path=title.lower().replace(" ", "-"),
            default=seed == 1)
    for seed, title in enumerate(PAGES)
])
with st.sidebar:
    st.selectbox("Data set", ["demo", "upload"], key="data_set")
    st.slider("K", 1, CUTOFFS, 10, key="cutoff")
    st.radio("Relevance", ["threshold", "grades"], key="relevance")
navigation.run()
