"""rankmetrics dashboard: compare recommender and search models with ranking metrics.

Run with ``streamlit run app.py``. This entrypoint only routes: it declares the pages, sets up
the session and draws the sidebar shared by every page (data, relevance, conventions, cutoff).
"""

import streamlit as st

from dashboard.navigation import PAGES
from dashboard.session import init_session
from dashboard.sidebar import sidebar

st.set_page_config(page_title="rankmetrics: compare ranking models", page_icon="📈",
                   layout="wide")

init_session()

# The page scripts are in app_pages/: Streamlit serves a folder named pages/ next to the
# entrypoint as an old-style multipage app (a page per file, run without this entrypoint) until
# some session has run st.navigation, so a bookmark opened first after a restart would miss the
# session set-up and the sidebar. The URL paths are the addresses people bookmark (the
# default page's is the root).
navigation = st.navigation([
    st.Page(PAGES["data"], title="Data", icon=":material/upload_file:",
            url_path="data-files"),
    st.Page(PAGES["compare"], title="Compare models", icon=":material/show_chart:",
            url_path="compare-models", default=True),
    st.Page(PAGES["users"], title="Users", icon=":material/groups:",
            url_path="per-user"),
    st.Page(PAGES["significance"], title="Significance", icon=":material/balance:",
            url_path="significance"),
    st.Page(PAGES["head_to_head"], title="Head-to-head",
            icon=":material/compare_arrows:", url_path="head-to-head"),
    st.Page(PAGES["ndcg"], title="NDCG explained", icon=":material/calculate:",
            url_path="ndcg-explained"),
    st.Page(PAGES["choosing_k"], title="Choosing K", icon=":material/tune:",
            url_path="choosing-k"),
])

status_area = st.container()
with st.sidebar:
    sidebar(status_area)

navigation.run()
