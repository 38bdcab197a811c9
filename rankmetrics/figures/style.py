"""The look every figure shares: the palette and each model's colour, the metrics' labels
and titles in words, the title, subtitle and legend layout, and names escaped for Plotly.

>>> model_colors(["a", "b"])["b"]
'#E69F00'
>>> escaped("<b>bold</b>"), translucent("#0072B2", 0.5)
('&lt;b&gt;bold&lt;/b&gt;', 'rgba(0, 114, 178, 0.5)')
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.colors import qualitative

from rankmetrics.metrics import declared, plain_label

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), without its
# yellow, which is unreadable on white; then Plotly's Dark24 for long model lists.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999",
    *qualitative.Dark24,
)
IDEAL_COLOR = "#BBBBBB"
TIE_COLOR = "#999999"
# Pairwise matrix: blue and red stay distinct with the common colour-vision deficiencies
# (ColorBrewer RdBu's ends); glyphs ▲ / ▼ repeat the colour in the cell text.
BETTER_COLOR, WORSE_COLOR, NEUTRAL_COLOR = "#2166AC", "#B2182B", "#E8E8E8"
BAND_OPACITY = 0.18
FONT = {"size": 14}
SUBTITLE_SIZE = 13
#: Pixels a line of the title and of the subtitle takes at the top of a figure.
TITLE_LINE, SUBTITLE_LINE = 20, 17
AXIS_GREY, GRID_GREY = "rgba(128, 128, 128, 0.8)", "rgba(128, 128, 128, 0.25)"


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """A colour per model, by its position in the data set's model list, so that a model keeps
    its colour on every page and in every figure."""
    return {model: PALETTE[i % len(PALETTE)] for i, model in enumerate(models)}


def metric_label(metric: str, cutoff: int | None = None) -> str:
    """``"NDCG@10"``; ``"NDCG@K"`` without a cutoff; R-Precision has none.

    >>> metric_label("hit_rate", 5), metric_label("ndcg"), metric_label("r_precision", 5)
    ('HitRate@5', 'NDCG@K', 'R-Precision')
    """
    spec = declared(metric)
    if not spec.has_cutoff:
        return spec.label
    return f"{spec.label}@{'K' if cutoff is None else cutoff}"


def metric_title(metric: str, cutoff: int | None = None) -> str:
    """A metric as a chart names it: its plain name, then its label at the cutoff.

    >>> metric_title("ndcg", 10), metric_title("aplt")
    ('Ranking quality (NDCG@10)', 'Share of long-tail items (APLT@K)')
    """
    return plain_label(metric, metric_label(metric, cutoff))


def in_sentence(text: str) -> str:
    """A plain name or title as it reads inside a sentence: its first letter in lower case,
    unless it starts an abbreviation.

    >>> in_sentence("Share of long-tail items (APLT@10)"), in_sentence("NDCG (long tail)")
    ('share of long-tail items (APLT@10)', 'NDCG (long tail)')
    """
    return text if text[:2].isupper() else text[:1].lower() + text[1:]


def wrapped(text: str, width: int) -> str:
    """Text broken into lines of at most ``width`` characters for a Plotly title (Plotly
    does not wrap), at spaces.

    >>> wrapped("Higher: recommends more popular items", 20)
    'Higher: recommends<br>more popular items'
    """
    return "<br>".join(textwrap.wrap(text, width, break_long_words=False))


def translucent(color: str, opacity: float = BAND_OPACITY) -> str:
    """A ``#RRGGBB`` colour as ``rgba(r, g, b, opacity)``."""
    red, green, blue = (int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red}, {green}, {blue}, {opacity})"


def styled(fig: go.Figure, title: str, *, subtitle: str | None = None,
           height: int = 440) -> go.Figure:
    """The shared look: the title on top (lines broken with ``<br>``), the subtitle under it
    in smaller type (which way is better, what the chart shows), the legend in a row under
    them, then the plot."""
    extra = (TITLE_LINE * title.count("<br>")
             + (SUBTITLE_LINE * (subtitle.count("<br>") + 1) if subtitle else 0))
    fig.update_layout(
        height=height, font=FONT, margin={"t": 125 + extra, "b": 50, "l": 60, "r": 20},
        title={"text": title, "font": {"size": 16}, "x": 0, "xref": "paper",
               "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12},
               **({"subtitle": {"text": subtitle, "font": {"size": SUBTITLE_SIZE}}}
                  if subtitle else {})},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1 - (46 + extra) / height,
                "yref": "container", "yanchor": "top"},
    )
    # No background of its own and greys that show on white and on a dark page alike, so the
    # figure follows the page's theme (light or dark).
    # Sizes set here, not left to a page's template (Streamlit's draws ticks at 12 px).
    fig.update_xaxes(showline=True, linecolor=AXIS_GREY, gridcolor=GRID_GREY,
                     tickfont_size=13, title_font_size=14)
    fig.update_yaxes(showline=True, linecolor=AXIS_GREY, gridcolor=GRID_GREY,
                     tickfont_size=13, title_font_size=14)
    fig.update_layout(legend_font_size=14)
    return fig


def escaped(text: object) -> str:
    """Text shown literally by Plotly, which would otherwise read tags such as <b> or <a>."""
    return html.escape(str(text), quote=False)
