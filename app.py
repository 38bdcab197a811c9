"""rankmetrics dashboard: compare recommender and search models with ranking metrics.

Run with ``streamlit run app.py``. This entrypoint only routes: it declares the pages, sets up
the session and draws the sidebar shared by every page (data, relevance, conventions, cutoff).
"""

import streamlit as st

from pages import _state

st.set_page_config(page_title="rankmetrics: compare ranking models", page_icon="📈",
                   layout="wide")

_state.init_session()

# URL paths differ from the file names on purpose: with a pages/ folder next to it, Streamlit
# treats this app as an old-style multipage app until st.navigation has run once (always, in
# AppTest), and would run a page whose URL matches its file name without this entrypoint.
navigation = st.navigation([
    st.Page(_state.PAGES["data"], title="Data", icon=":material/upload_file:",
            url_path="data-files"),
    st.Page(_state.PAGES["compare"], title="Compare models", icon=":material/show_chart:",
            url_path="compare-models", default=True),
    st.Page(_state.PAGES["users"], title="Users", icon=":material/groups:",
            url_path="per-user"),
    st.Page(_state.PAGES["significance"], title="Significance", icon=":material/balance:",
            url_path="significance"),
    st.Page(_state.PAGES["head_to_head"], title="Head-to-head",
            icon=":material/compare_arrows:", url_path="head-to-head"),
    st.Page(_state.PAGES["ndcg"], title="NDCG explained", icon=":material/calculate:",
            url_path="ndcg-explained"),
])

status_area = st.container()
with st.sidebar:
    _state.sidebar(status_area)

navigation.run()
