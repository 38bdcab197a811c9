"""Every session-state key the dashboard uses, named once.

Widgets and callbacks in different files meet in ``st.session_state``; spelling a key in one
place keeps them talking about the same value. Keys starting with ``_`` hold what the app
computed, not what the user chose.
"""

from __future__ import annotations

# The data set and the uploads
DATASET = "dataset"
UPLOADS = "uploads"
UPLOADER_NONCE = "uploader_nonce"
DISMISS_TRUTH = "dismiss_truth"
#: Why the last upload was refused (the server's memory is taken), until the next upload.
UPLOAD_REFUSED = "_upload_refused"
#: The session's hold on the shared objects it uses (see dashboard.budget).
LEASE = "_lease"

# Relevance
REL_KIND = "rel_kind"
REL_THRESHOLD = "rel_threshold"
REL_GRADE_THRESHOLD = "rel_grade_threshold"
GRADE_TABLE = "grade_table"
GRADE_BASE = "grade_base"
GRADE_NONCE = "grade_nonce"
GRADE_EDITOR_LIVE = "_grade_editor_live"
#: The last relevance mapping the sidebar's controls gave without error (kept in force while
#: the grade table holds an invalid value).
VALID_MAPPING = "_valid_mapping"

# Conventions and cutoffs
PRESET = "preset"
CUTOFF = "cutoff"
MAX_CUTOFF = "max_cutoff"
CONFIDENCE = "confidence"
CONFIDENCE_CHOICE = "confidence_choice"
#: The image format (png, svg) every chart's camera icon saves it in, chosen in the sidebar.
CHART_FORMAT = "chart_format"

# What the sidebar prepared for the pages
PREPARED = "_prepared"
PROBLEM = "_problem"
SETTINGS = "_settings"
SETTINGS_SCOPE = "_settings_scope"
PREPARED_TOKENS = "_prepared_tokens"

# Compare models
COMPARE_METRICS = "compare_metrics"
COMPARE_BANDS = "compare_bands"

# Users
USERS_METRIC = "users_metric"
USERS_CHART = "users_chart"
USERS_MODEL = "users_model"
WORST_TABLE = "worst_table"

# Significance
SIGNIFICANCE_METRIC = "significance_metric"
SIGNIFICANCE_TEST = "significance_test"
SIGNIFICANCE_CORRECTION = "significance_correction"
SIGNIFICANCE_PERMUTATIONS = "significance_permutations"
SIGNIFICANCE_BOOTSTRAP = "significance_bootstrap"
SIGNIFICANCE_PAIR = "significance_pair"
SIGNIFICANCE_POWER = "significance_power"
SIGNIFICANCE_LIFT = "significance_lift"

# Why do they differ?
CONVENTIONS_METRIC = "conventions_metric"
CONVENTIONS_PAIR = "conventions_pair"
CONVENTIONS_MODEL = "conventions_model"

# Head-to-head
H2H_A = "h2h_a"
H2H_B = "h2h_b"
H2H_METRIC = "h2h_metric"
H2H_USER = "h2h_user"
H2H_B_AHEAD = "h2h_b_ahead"
H2H_A_AHEAD = "h2h_a_ahead"
H2H_PERSISTENCE = "h2h_persistence"

# Metrics explained: the model, user and comparison it shows
EXPLAIN_MODEL = "explain_model"
EXPLAIN_USER = "explain_user"
EXPLAIN_OTHER = "explain_other"
EXPLAIN_SEARCH = "explain_search"
SURPRISE_SEED = "surprise_seed"
DISAGREEMENT = "_disagreement"


def convention(option: str) -> str:
    """The sidebar's selector of one convention option (``gain``, ``ideal``, ...)."""
    return f"conv_{option}"


def grade_editor(nonce: int) -> str:
    return f"grade_editor_{nonce}"


def upload_runs(nonce: int) -> str:
    return f"upload_runs_{nonce}"


def upload_truth(nonce: int) -> str:
    return f"upload_truth_{nonce}"


def rename(file_id: str) -> str:
    return f"rename_{file_id}"


def rename_problem(file_id: str) -> str:
    return f"rename_problem_{file_id}"


def remove(file_id: str) -> str:
    return f"remove_{file_id}"


def read_options_form(file_id: str) -> str:
    return f"options_{file_id}"


def column(file_id: str, role: str) -> str:
    """The hand-chosen column of ``role`` (user, item, order: the score or rank column,
    order_kind, rating), or what the first line holds (first_line) and the roles of a file
    without a header line in order (column_order)."""
    return f"col_{file_id}_{role}"


def file_format(file_id: str) -> str:
    return f"format_{file_id}"


def h2h_list(side: str) -> str:
    return f"h2h_list_{side}"


def h2h_explain(side: str) -> str:
    return f"h2h_explain_{side}"


# Segments
#: The user-attributes file uploaded for the uploaded data set (a FileSpec), if any.
USER_ATTRIBUTES = "user_attributes"
USER_ATTRIBUTES_NONCE = "user_attributes_nonce"
SEGMENT_BY = "segment_by"
SEGMENT_METRIC = "segment_metric"
SEGMENT_BUCKETS = "segment_buckets"
SEGMENT_MIN_USERS = "segment_min_users"
SEGMENT_SHARE = "segment_share"
SEGMENT_TEST = "segment_test"
SEGMENT_CORRECTION = "segment_correction"
#: The Users, Significance and Head-to-head pages' choice of one segment: (by, segment) or
#: None for all users; each page's selector (SEGMENT_FILTER_CHOICE) starts from it.
SEGMENT_FILTER = "segment_filter"
SEGMENT_FILTER_CHOICE = "segment_filter_choice"
#: The convention options the chosen demo set (put back when another data set is chosen).
DEMO_CONVENTIONS = "_demo_conventions"


def upload_user_attributes(nonce: int) -> str:
    return f"upload_user_attributes_{nonce}"


# Beyond accuracy
#: The optional files of the uploaded data set, by kind ("interactions", "attributes").
BEYOND_FILES = "beyond_files"
BEYOND_METRICS = "beyond_metrics"
BEYOND_ACCURACY_METRIC = "beyond_accuracy_metric"
BEYOND_TRADEOFF_METRIC = "beyond_tradeoff_metric"
BEYOND_EXPOSURE_GROUPS = "beyond_exposure_groups"


def upload_extra(kind: str, nonce: int) -> str:
    """The Data page's uploader of an optional file (training interactions, item
    attributes)."""
    return f"upload_{kind}_{nonce}"


def remove_extra(kind: str) -> str:
    return f"remove_{kind}"


# The verdict: the model every other is compared with
BASELINE = "baseline"


# Metrics explained (its convention choices are its own: the sidebar's stay as they are)
EXPLAIN_METRIC = "explain_metric"


def explained_convention(option: str) -> str:
    """The Metrics explained page's own choice of a convention option (gain, ideal, AP
    denominator): it starts from the sidebar's and changes nothing outside the page."""
    return f"explained_{option}"


def explained_followed(option: str) -> str:
    """The sidebar's value of ``option`` the page's own choice last started from."""
    return f"_explained_followed_{option}"


# Playground: the edited list, the list before the last change and the words for the change
PLAYGROUND = "_playground"
PLAYGROUND_BEFORE = "_playground_before"
PLAYGROUND_WORDS = "_playground_words"
PLAYGROUND_LESSON = "_playground_lesson"
PLAYGROUND_PROBLEM = "_playground_problem"
PLAYGROUND_CUTOFF = "playground_cutoff"
PLAYGROUND_METRIC = "playground_metric"
PLAYGROUND_PRESENT = "playground_present"
PLAYGROUND_SWAP_A = "playground_swap_a"
PLAYGROUND_SWAP_B = "playground_swap_b"
PLAYGROUND_NEW_GRADE = "playground_new_grade"
PLAYGROUND_BEYOND = "playground_beyond"
PLAYGROUND_BEYOND_GRADE = "playground_beyond_grade"
PLAYGROUND_SWAP = "playground_swap"
PLAYGROUND_ADD = "playground_add"


def playground_option(option: str) -> str:
    """The playground's switch of a convention (gain, ideal, ap_denominator, threshold,
    ties): its own, never the sidebar's."""
    return f"playground_{option}"


def playground_grade(item: str) -> str:
    return f"playground_grade_{item}"


def playground_scenario(name: str) -> str:
    return f"playground_scenario_{name}"


def playground_action(action: str, item: str) -> str:
    """A row's button (up, down, remove) for one item of the playground's list."""
    return f"playground_{action}_{item}"


# Choosing K
CHOOSING_K_METRIC = "choosing_k_metric"
CHOOSING_K_TEST = "choosing_k_test"
CHOOSING_K_CORRECTION = "choosing_k_correction"
CHOOSING_K_PERMUTATIONS = "choosing_k_permutations"
CHOOSING_K_PAIR = "choosing_k_pair"
CHOOSING_K_THRESHOLDS = "choosing_k_thresholds"
CHOOSING_K_CUTOFFS = "choosing_k_cutoffs"


# Workspaces and links
#: The id of the session's workspace on the server (None until the first upload).
WORKSPACE = "workspace"
#: Why the uploads are not kept on the server (the server keeps as many workspaces as it may).
WORKSPACE_NOTE = "_workspace_note"
#: What the last opened workspace held that could not be read (one message per file).
WORKSPACE_DAMAGED = "_workspace_damaged"
#: The ids of the workspace's files this tab last saw (what it saves is merged with the rest).
WORKSPACE_BASE = "_workspace_base"
#: The files another tab saved in the workspace, which this tab's save kept (a message).
WORKSPACE_MERGED = "_workspace_merged"
#: What the page's link asked for, read when the session started: settings that need the data
#: (relevance, cutoffs, models, users) wait here until the data set is prepared.
LINK_PENDING = "_link_pending"
#: Why values of the link were not used (shown once, then dropped).
LINK_NOTICES = "_link_notices"


# A saved evaluation (bundle) opened in the dashboard
#: The OpenedBundle of this session.
BUNDLE = "_bundle"
#: The --bundle path given on the command line, once it was opened for this session.
BUNDLE_FROM_COMMAND_LINE = "_bundle_from_command_line"
#: Why the last bundle could not be opened.
BUNDLE_PROBLEM = "_bundle_problem"
BUNDLE_UPLOAD = "bundle_upload"
BUNDLE_CUTOFF = "bundle_cutoff"


# What a link says of the pages that keep their own choices
#: The Playground's view a link described (a PlaygroundView), until the page first opens.
PLAYGROUND_FROM_LINK = "_playground_from_link"
#: The scenario the Playground's list started from.
PLAYGROUND_SCENARIO = "playground_started_from"
#: What the link says that is checked against the evaluated data (the one-segment filter,
#: the Beyond accuracy metrics), waiting until the sidebar has set up the evaluation.
LINK_VIEW_PENDING = "_link_view_pending"
