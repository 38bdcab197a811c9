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

# Head-to-head
H2H_A = "h2h_a"
H2H_B = "h2h_b"
H2H_METRIC = "h2h_metric"
H2H_USER = "h2h_user"
H2H_B_AHEAD = "h2h_b_ahead"
H2H_A_AHEAD = "h2h_a_ahead"

# NDCG explained
EXPLAIN_MODEL = "explain_model"
EXPLAIN_USER = "explain_user"
EXPLAIN_OTHER = "explain_other"
EXPLAIN_SEARCH = "explain_search"
SURPRISE_SEED = "surprise_seed"
DISAGREEMENT = "_disagreement"


def convention(option: str) -> str:
    """The sidebar's selector of one convention option (``gain``, ``ideal``, ...)."""
    return f"conv_{option}"


def ndcg_convention(option: str) -> str:
    """The NDCG explained page's own radio for a convention option (it follows the sidebar)."""
    return f"ndcg_{option}"


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
    """The hand-chosen column of ``role`` (user, item, order, order_kind, rating)."""
    return f"col_{file_id}_{role}"


def file_format(file_id: str) -> str:
    return f"format_{file_id}"


def h2h_list(side: str) -> str:
    return f"h2h_list_{side}"


def h2h_explain(side: str) -> str:
    return f"h2h_explain_{side}"


# Choosing K
CHOOSING_K_METRIC = "choosing_k_metric"
CHOOSING_K_TEST = "choosing_k_test"
CHOOSING_K_CORRECTION = "choosing_k_correction"
CHOOSING_K_PERMUTATIONS = "choosing_k_permutations"
CHOOSING_K_PAIR = "choosing_k_pair"
CHOOSING_K_THRESHOLDS = "choosing_k_thresholds"
CHOOSING_K_CUTOFFS = "choosing_k_cutoffs"
