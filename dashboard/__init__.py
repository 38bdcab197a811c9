"""The dashboard's Streamlit side, shared by the page scripts in ``pages/``.

Each module has one purpose: ``keys`` names every session-state key, ``session`` sets the
session up and prepares the active data set, ``sidebar`` draws the shared controls,
``uploads`` keeps the uploaded files, ``demos`` the bundled data sets, ``cached`` the cached
calls into the library, ``text`` escapes text from users' files. Imports point down only:
``app.py`` -> ``pages/`` -> ``dashboard/`` -> ``rankmetrics/``.
"""
