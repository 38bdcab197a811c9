"""The sidebar's "Share" section: the link to this view, the report of the comparison, and
why parts of an opened link were not used."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import keys
from dashboard.bundles import opened
from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import inputs as cached_inputs
from dashboard.cached import segments as cached_segments
from dashboard.cached import significance as cached_significance
from dashboard.controls import file_name
from dashboard.demos import DEMOS
from dashboard.files import FileSpec
from dashboard.links import apply_view_settings, dismiss_notices, notices, write_link
from dashboard.prepared import Prepared
from dashboard.segment_choice import attributes_spec, offered_segmentations
from dashboard.settings import Settings
from dashboard.verdict import significance_choice
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.report.html import build_report, fingerprint, saved_input
from rankmetrics.segments import GROUND_TRUTH_SIZE, N_BUCKETS

#: "Copy link": one click copies the page's address as the browser shows it (the URL holds
#: every setting, see dashboard.links). Where the browser refuses the clipboard (a server
#: reached over plain http is not a secure context), the link appears selected in a text
#: field, copied by the browser's copy command if it allows that, else by Ctrl+C.
#: Nothing from a user's file is in this HTML: it is the same for every session.
COPY_LINK = """
<style>
.rm-copy-link button { width: 100%; min-height: 2.5rem; padding: 0.25rem 0.75rem;
  display: inline-flex; align-items: center; justify-content: center; gap: 0.5rem;
  border-radius: 0.5rem; border: 1px solid rgba(128, 128, 128, 0.45);
  background: transparent; color: inherit; font: inherit; font-size: 0.875rem;
  cursor: pointer; }
.rm-copy-link button::before { content: ""; width: 1.1rem; height: 1.1rem;
  background-color: currentColor; -webkit-mask: var(--rm-link-icon) center / contain no-repeat;
  mask: var(--rm-link-icon) center / contain no-repeat; }
.rm-copy-link { --rm-link-icon: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' \
viewBox='0 0 24 24'%3E%3Cpath d='M3.9 12c0-1.71 1.39-3.1 3.1-3.1h4V7H7c-2.76 0-5 2.24-5 5s2.24 5 5 \
5h4v-1.9H7c-1.71 0-3.1-1.39-3.1-3.1zM8 13h8v-2H8v2zm9-6h-4v1.9h4c1.71 0 3.1 1.39 3.1 3.1s-1.39 \
3.1-3.1 3.1h-4V17h4c2.76 0 5-2.24 5-5s-2.24-5-5-5z'/%3E%3C/svg%3E"); }
.rm-copy-link button:hover { border-color: #ff4b4b; color: #ff4b4b; }
.rm-copy-link input { width: 100%; margin-top: 0.4rem; font-size: 0.8rem; }
.rm-copy-link [role="status"] { font-size: 0.875rem; min-height: 1.2rem; margin-top: 0.2rem; }
</style>
<div class="rm-copy-link">
  <button type="button" id="rm-copy-link"
          title="Copy this page's link: it reopens this view, with these settings and files,
on this server">Copy link</button>
  <input id="rm-copy-link-field" type="text" readonly hidden
         aria-label="The link to this view">
  <div id="rm-copy-link-status" role="status" aria-live="polite"></div>
</div>
<script>
(() => {
  const button = document.getElementById("rm-copy-link");
  if (!button || button.dataset.ready) return;
  button.dataset.ready = "yes";
  const field = document.getElementById("rm-copy-link-field");
  const status = document.getElementById("rm-copy-link-status");
  let timer = null;
  const say = (text) => {
    status.textContent = text;
    clearTimeout(timer);
    timer = setTimeout(() => { status.textContent = ""; }, 6000);
  };
  const byHand = (url) => {
    field.hidden = false;
    field.value = url;
    field.focus();
    field.select();
    let copied = false;
    try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
    say(copied ? "Link copied" : "Press Ctrl+C (\u2318C on a Mac) to copy the selected link");
  };
  button.addEventListener("click", () => {
    const url = window.location.href;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(
        () => { field.hidden = true; say("Link copied"); }, () => byHand(url));
    } else {
      byHand(url);
    }
  });
})();
</script>
"""


def share_controls(status_area, prepared: Prepared | None) -> None:
    """Write this view into the URL and offer it to copy; show the link's notices."""
    settings = st.session_state.get(keys.SETTINGS)
    if prepared is not None and settings is not None:
        apply_view_settings(prepared, settings)
    write_link(prepared)
    st.divider()
    st.subheader("Share")
    st.html(COPY_LINK, unsafe_allow_javascript=True)
    if (prepared is not None and settings is not None and len(prepared.models) > 1
            and cached_significance.users_every_model_counts(prepared, settings) > 1):
        report_button(prepared, settings)
    shown = notices()
    if shown:
        with status_area.container(border=True):
            for text in shown:
                st.warning(text, icon=":material/link_off:")
            st.button("Dismiss", key="dismiss_link_notices", on_click=dismiss_notices)


def saved_share_controls(prepared: Prepared, settings: Settings) -> None:
    """A saved evaluation's "Share" section: its report (a link cannot carry the evaluation,
    which lives in this session only)."""
    st.divider()
    st.subheader("Share")
    if (len(prepared.models) > 1
            and cached_significance.users_every_model_counts(prepared, settings) > 1):
        report_button(prepared, settings)
    st.caption("A link cannot open a saved evaluation: share the archive itself, or this "
               "report.")


def report_button(prepared: Prepared, settings: Settings) -> None:
    """"Download report": the HTML report of this comparison, written when clicked (of a
    saved evaluation: from its numbers, naming its archive)."""
    choice = significance_choice()
    chosen = st.session_state.get(keys.SIGNIFICANCE_METRIC, "ndcg")
    metric = chosen if chosen in MAIN_METRICS else "ndcg"  # the report's tests need accuracy
    evaluation = cached_evaluation.shown_evaluation(prepared, settings)
    bundle = opened() if evaluation.saved_from is not None else None
    specs = ({} if bundle is not None else
             {"ground truth": prepared.truth_spec,
              **{model: prepared.specs[model] for model in prepared.models}})
    counts = {role: cached_inputs.counts(spec) for role, spec in specs.items()}
    source = (DEMOS[prepared.source].label if prepared.source in DEMOS
              else f"saved evaluation {Path(bundle.name).name}" if bundle is not None
              else "your files")
    title = f"Model comparison: {source}"
    by, buckets = _segments_shown(prepared)
    segments = (None if by is None else
                cached_segments.segmentation(prepared, settings, attributes_spec(), by, buckets))
    extras = _extra_files(prepared, by)

    def write() -> str:  # when clicked, outside the page's run: no session state here
        inputs = ([saved_input(Path(bundle.name).name, bundle.sha256, bundle.saved)]
                  if bundle is not None else
                  [fingerprint(role, spec.file_name, _content(spec), counts[role][0],
                               counts[role][1], columns=spec.columns, format=spec.format)
                   for role, spec in specs.items()])
        extra_inputs = [fingerprint(role, spec.file_name, _content(spec), rows, users,
                                    columns=spec.columns, format=spec.format)
                        for role, spec, rows, users in extras]
        return build_report(evaluation, inputs, cutoff=settings.cutoff, metric=metric,
                            test=choice.test, correction=choice.correction,
                            confidence=choice.confidence, n_permutations=choice.n_permutations,
                            n_bootstrap=choice.n_bootstrap, title=title,
                            colors=prepared.colors, extras=extra_inputs, segments=segments,
                            buckets=buckets)

    st.download_button(
        "Download report", write, mime="text/html", key="report_html", on_click="ignore",
        file_name=file_name("rankmetrics report", prepared.source, "K", settings.cutoff,
                            suffix=".html"),
        icon=":material/description:", use_container_width=True,
        help="One HTML file that opens offline: the decision in words, the curves, the table "
        "at K, the distributions, the significance matrix, the models by segment, the "
        "beyond-accuracy metrics when their files are there, the conventions, each file's "
        "fingerprint and the command line that computes the same numbers."
        + ("" if metric == chosen else
           f" Its distributions and tests are on {METRICS[metric].label}: the Significance "
           "page's beyond-accuracy metric is in its table of those metrics."))


def _segments_shown(prepared: Prepared) -> tuple[str | None, int]:
    """The Segments page's split of the users (None: the report's own, by ground-truth size
    in the default buckets) and its buckets. A split the data set does not offer (the page
    last showed another data set) is not used."""
    state = st.session_state
    by, buckets = state.get(keys.SEGMENT_BY), int(state.get(keys.SEGMENT_BUCKETS, N_BUCKETS))
    if by not in offered_segmentations(prepared, attributes_spec()):
        by = None
    if by in (None, GROUND_TRUTH_SIZE) and buckets == N_BUCKETS:
        return None, buckets
    return by or GROUND_TRUTH_SIZE, buckets


def _extra_files(prepared: Prepared, by: str | None
                 ) -> list[tuple[str, FileSpec, int, int]]:
    """The optional files the report's numbers depend on, with their rows and users:
    training interactions and item attributes (the beyond-accuracy metrics, activity and
    cold start), and the user attributes when the segments come from one of their columns."""
    extras = []
    spec = prepared.extras.get("interactions")
    interactions = cached_inputs.read_file(spec).table if spec is not None else None
    if spec is not None and interactions is not None:
        extras.append(("training interactions", spec, interactions.n_rows,
                       interactions.n_users))
    spec = prepared.extras.get("attributes")
    items = cached_inputs.read_item_attributes(spec).table if spec is not None else None
    if spec is not None and items is not None:
        extras.append(("item attributes", spec, len(items.table), len(items.table)))
    spec = attributes_spec()
    attributes = cached_segments.user_attributes(spec)[0] if spec is not None else None
    if spec is not None and attributes is not None and by in attributes.kinds:
        extras.append(("user attributes", spec, len(attributes.table), len(attributes.table)))
    return extras


def _content(spec: FileSpec) -> bytes:
    return spec.data if spec.data is not None else Path(spec.path or "").read_bytes()
