"""The dashboard's Streamlit side, shared by the page scripts in ``app_pages/``.

One purpose a module: ``keys`` names every session-state key; ``session`` sets the session up,
prepares the active data set and starts every page; ``sidebar`` draws the shared controls
and ``settings`` says what they mean; ``uploads`` keeps the uploaded files, ``demos`` the
bundled data sets, ``files`` the identity of a file; ``cached`` holds the bounded caches
around the library, ``prepared`` the data set they are keyed on; ``navigation`` and
``controls`` are what pages share to move between pages and pick values; ``text`` escapes
users' text. Imports point down only: ``app.py`` -> ``app_pages/`` -> ``dashboard/`` ->
``rankmetrics/``.
"""
