"""rankmetrics dashboard: compare recommender and search models with ranking metrics.

Run with ``streamlit run app.py``. This entrypoint only routes: it declares the pages, sets up
the session and draws the sidebar shared by every page (data, relevance, conventions, cutoff),
each page's showing the settings that page depends on.
"""

import streamlit as st

from dashboard import keys
from dashboard.links import write_link
from dashboard.navigation import PAGES, ndcg_explained
from dashboard.session import init_session
from dashboard.sidebar import sidebar
from rankmetrics.runtime import prefer_ordinary_pages

# A 250 px sidebar (Streamlit's is 300). Its "auto" state collapses it only in windows up to
# 768 px wide; FOLD_SIDEBAR collapses it up to NARROW_WINDOW px.
st.set_page_config(page_title="rankmetrics: compare ranking models", page_icon="📈",
                   layout="wide", initial_sidebar_state=250)

prefer_ordinary_pages()  # the server evaluates uploads of millions of rows: see its docstring
init_session()

# The page scripts are in app_pages/: Streamlit serves a folder named pages/ next to the
# entrypoint as an old-style multipage app (a page per file, run without this entrypoint) until
# some session has run st.navigation, so a bookmark opened first after a restart would miss the
# session set-up and the sidebar. The URL paths are the addresses people bookmark (the
# default page's is the root).
pages = {
    "data": st.Page(PAGES["data"], title="Data", icon=":material/upload_file:",
                    url_path="data-files"),
    "compare": st.Page(PAGES["compare"], title="Compare models", icon=":material/show_chart:",
                       url_path="compare-models", default=True),
    "users": st.Page(PAGES["users"], title="Users", icon=":material/groups:",
                     url_path="per-user"),
    "significance": st.Page(PAGES["significance"], title="Significance",
                            icon=":material/balance:", url_path="significance"),
    "head_to_head": st.Page(PAGES["head_to_head"], title="Head-to-head",
                            icon=":material/compare_arrows:", url_path="head-to-head"),
    "segments": st.Page(PAGES["segments"], title="Segments", icon=":material/donut_small:",
                        url_path="segments"),
    "beyond": st.Page(PAGES["beyond"], title="Beyond accuracy", icon=":material/diversity_3:",
                      url_path="beyond-accuracy"),
    "explained": st.Page(PAGES["explained"], title="Metrics explained",
                         icon=":material/calculate:", url_path="metrics-explained"),
    "playground": st.Page(PAGES["playground"], title="Playground", icon=":material/school:",
                          url_path="playground"),
    "choosing_k": st.Page(PAGES["choosing_k"], title="Choosing K", icon=":material/tune:",
                          url_path="choosing-k"),
    "conventions": st.Page(PAGES["conventions"], title="Why do they differ?",
                           icon=":material/rule:", url_path="why-they-differ"),
}
navigation = st.navigation([
    *pages.values(),
    st.Page(ndcg_explained, title="NDCG explained", url_path="ndcg-explained",
            visibility="hidden"),
])
# The page in view, named as in PAGES (None: the old NDCG address, which moves on at once)
page_in_view = next((name for name, page in pages.items()
                     if page.url_path == navigation.url_path), None)

#: Windows narrower than this (px) open with the sidebar collapsed: beside a 250 px sidebar
#: the pages' tables and controls would have less than 700 px.
NARROW_WINDOW = 1000
#: Collapses an open sidebar in a narrow window when the page loads, unless the viewer has
#: opened or closed it before (Streamlit remembers that choice in the browser's local storage);
#: this collapse is not remembered as the viewer's choice, so a reload collapses it again.
FOLD_SIDEBAR = f"""<script>
(() => {{
    const chosen = () => Object.keys(localStorage).filter(
        key => key.startsWith("stSidebarCollapsed-"));
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    if (chosen().length || window.innerWidth >= {NARROW_WINDOW}
        || !sidebar || sidebar.getAttribute("data-collapsed") !== "false") return;
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (!button) return;
    button.click();
    chosen().forEach(key => localStorage.removeItem(key));
}})();
</script>"""

status_area = st.container()
with st.sidebar:
    sidebar(status_area, page_in_view)
    st.html(FOLD_SIDEBAR, unsafe_allow_javascript=True)

navigation.run()
# What the page itself chose in this run (a pair, a filter) goes into the link now, not on the
# next run: a link copied right after a choice must hold it.
write_link(st.session_state.get(keys.PREPARED))
