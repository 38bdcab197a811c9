"""Figures in words, and figures in the colours of a light or dark page.

A chart is a picture: a reader who cannot see it (a screen reader, a text browser, a
colour-blind reader unsure of a colour) needs its gist as text. :func:`text_alternative`
reads a figure made by :mod:`rankmetrics.figures` (its traces carry a ``meta`` role) and says
what it shows and its top line in a sentence or two.

:func:`recolored` adapts a figure to the page it is shown on ("light" or "dark"), whose
Plotly template gives the background, text and grid: colours that would vanish on a dark
page (black lines) are swapped, and tick labels on a light page get at least 4.5:1 contrast
(WCAG AA). It also gives every chart the same type sizes where its builder chose none, so
the pages' charts read alike.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import plotly.graph_objects as go

from rankmetrics.checks import check_choice
from rankmetrics.metrics import METRICS

THEMES = ("light", "dark")
#: Page background and text per theme (text: at least 4.5:1 contrast on the background).
BACKGROUND = {"light": "#FFFFFF", "dark": "#171614"}
TEXT = {"light": "#1F2129", "dark": "#FAFAFA"}
#: Chart text on a light page (ticks, axis and panel titles, legend): 4.7:1 on white, and
#: still 3.8:1 on the dark page for the moment after a viewer switches themes and before the
#: page is drawn again.
LIGHT_TICKS = "#737373"
#: Colours that do not show on a dark page, and what replaces them there; any other colour
#: with less than 3:1 contrast on the dark background (WCAG's minimum for lines and marks)
#: is lightened until it has it.
ON_DARK = {"#000000": "#F0E442"}
MARK_CONTRAST = 3.0
#: Type sizes of every chart (px) where its builder chose none: the text, tick labels, axis
#: titles, the legend and the chart's title. A builder that sets a larger text size (a chart
#: for a projector) keeps its own.
TYPE_SIZES = {"text": 14, "ticks": 13, "axis_titles": 14, "legend": 14, "title": 16}
_TAGS = re.compile(r"<[^>]+>")
_HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two ``#RRGGBB`` colours, from 1 to 21.

    >>> round(contrast_ratio("#000000", "#FFFFFF"), 1)
    21.0
    >>> round(contrast_ratio("#777777", "#FFFFFF"), 2)  # just below WCAG AA's 4.5
    4.48
    """
    def luminance(color: str) -> float:
        channels = [int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def recolored(fig: go.Figure, theme: str) -> go.Figure:
    """A copy of ``fig`` for a page in the ``theme`` ("light" or "dark").

    On "dark", black lines turn yellow and too-dark colours lighter; on "light", tick labels,
    axis and panel titles and the legend get 4.7:1 contrast (the template's greys have less).
    The page's template, applied where the figure is drawn, gives the background, the other
    text and the grid."""
    theme = check_choice("theme", theme, THEMES)
    out = go.Figure(fig)
    recolor(out, theme)
    return out


def recolor(fig: go.Figure, theme: str) -> None:
    """:func:`recolored` in place, for a figure made to be shown once (no copy)."""
    theme = check_choice("theme", theme, THEMES)
    _house_type(fig)
    if theme == "dark":
        _recolor_for_dark(fig)
    else:
        fig.update_xaxes(tickfont_color=LIGHT_TICKS, title_font_color=LIGHT_TICKS)
        fig.update_yaxes(tickfont_color=LIGHT_TICKS, title_font_color=LIGHT_TICKS)
        fig.update_annotations(font_color=LIGHT_TICKS)
        fig.update_layout(legend_font_color=LIGHT_TICKS)


def _house_type(fig: go.Figure) -> None:
    """:data:`TYPE_SIZES` wherever ``fig`` has no size of its own (and its text is not
    larger than the house size: then its unset parts inherit the builder's choice)."""
    chosen = fig.layout.font.size
    if chosen is not None and chosen > TYPE_SIZES["text"]:
        return
    fig.layout.font.size = chosen or TYPE_SIZES["text"]
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        if axis.tickfont.size is None:
            axis.tickfont.size = TYPE_SIZES["ticks"]
        if axis.title.font.size is None:
            axis.title.font.size = TYPE_SIZES["axis_titles"]
    if fig.layout.legend.font.size is None:
        fig.layout.legend.font.size = TYPE_SIZES["legend"]
    if fig.layout.title.font.size is None:
        fig.layout.title.font.size = TYPE_SIZES["title"]


def on_dark(color: str) -> str:
    """A colour that shows on the dark page: the replacement in ``ON_DARK``, or the colour
    lightened (mixed with white) until it has 3:1 contrast on the dark background.

    >>> on_dark("#000000"), on_dark("#E69F00"), on_dark("#222A2A")
    ('#F0E442', '#E69F00', '#646A6A')
    """
    if color in ON_DARK or not _HEX.fullmatch(color):
        return ON_DARK.get(color, color)
    mixed, share = color, 0.0
    while contrast_ratio(mixed, BACKGROUND["dark"]) < MARK_CONTRAST and share < 1:
        share += 0.05
        mixed = "#" + "".join(
            f"{round(int(color[i:i + 2], 16) * (1 - share) + 255 * share):02X}" for i in (1, 3, 5))
    return mixed


def _recolor_for_dark(fig: go.Figure) -> None:
    def swap(color: object) -> object:
        return on_dark(color) if isinstance(color, str) else color

    for trace in fig.data:
        if isinstance(trace.customdata, tuple) and (trace.meta or {}).get("role") == "hover":
            trace.customdata = [_HEX.sub(lambda m: on_dark(m.group(0)), str(text))
                                for text in trace.customdata]
        for part in ("line", "marker"):
            style = getattr(trace, part, None)
            if style is None:
                continue
            if "color" in style and isinstance(style.color, str):
                style.color = swap(style.color)
            outline = getattr(style, "line", None)
            if outline is not None and isinstance(outline.color, str):
                outline.color = swap(outline.color)
        hover = getattr(trace, "hoverlabel", None)
        if hover is not None and hover.bgcolor == "white":
            hover.bgcolor, hover.font.color = "#262730", TEXT["dark"]


def text_alternative(fig: go.Figure) -> str:
    """What a figure shows, and its top line, in words: its title and subtitle, then what its
    traces hold (the models' values at the chosen K, the significant pairs, the users each
    model serves better, the means) or, for a figure it does not know, the names in its
    legend.

    >>> from rankmetrics.figures import metric_curves
    >>> curves = {"a": {"ndcg": [1.0, 0.8]}, "b": {"ndcg": [0.5, 0.9]}}
    >>> text_alternative(metric_curves(curves, ["ndcg"], cutoff=2))
    'Mean over users at K = 1..2; dotted line: K = 2. At K = 2, NDCG: b 0.9000, a 0.8000.'
    """
    roles: dict[str, list] = {}
    for trace in fig.data:
        role = trace.meta.get("role") if isinstance(trace.meta, dict) else None
        roles.setdefault(role or "", []).append(trace)
    detail = (_chosen_k(roles.get("marker", [])) or _matrix(roles.get("matrix", []))
              or _counts(roles.get("outcome", []), roles.get("users", []))
              or _box_means(roles.get("box", [])) or _names(fig))
    subtitle = fig.layout.title.subtitle.text
    heading = _words(fig.layout.title.text or "Chart") + (f". {_words(subtitle)}" if subtitle
                                                          else "")
    return f"{heading}. {detail}".strip()


def _chosen_k(markers: Sequence) -> str:
    """The models' values at the chosen K, highest first, per metric."""
    by_metric: dict[str, list[tuple[float, str]]] = {}
    for trace in markers:
        if trace.meta.get("metric") in METRICS and trace.x and trace.y:
            by_metric.setdefault(trace.meta["metric"], []).append(
                (trace.y[0], _words(trace.name)))
    if not by_metric:
        return ""
    sentences = []
    for metric, values in by_metric.items():
        ranked = sorted(values, key=lambda pair: -pair[0])
        sentences.append(f"{METRICS[metric].label}: "
                         + ", ".join(f"{name} {value:.4f}" for value, name in ranked))
    return f"At K = {markers[0].x[0]}, " + "; ".join(sentences) + "."


def _matrix(traces: Sequence) -> str:
    """How many pairs of the significance matrix differ significantly."""
    if not traces or traces[0].z is None:
        return ""
    cells = [v for row in traces[0].z for v in row if v is not None]
    better = sum(1 for v in cells if v == 1)
    return (f"{better} of {len(cells) // 2} pairs differ significantly; the others may differ "
            "by chance.")


def _counts(outcomes: Sequence, users: Sequence) -> str:
    """The users each model serves better (bars, or the scatter's legend)."""
    counts = [f"{_words(t.name)}: {t.x[0]:,} users" for t in outcomes if t.name and t.x]
    counts = counts or [_words(t.name) for t in users if t.name]
    return ", ".join(counts) + "." if counts else ""


def _box_means(boxes: Sequence) -> str:
    means = [f"{_words(t.name)} {t.mean[0]:.4f}" for t in boxes if t.name and t.mean]
    return "Mean per model: " + ", ".join(means) + "." if means else ""


def _names(fig: go.Figure) -> str:
    """The names a figure's legend shows."""
    names = [_words(t.name) for t in fig.data if t.name and t.showlegend is not False]
    return "Shown: " + ", ".join(dict.fromkeys(names)) + "." if names else ""


def _words(text: object) -> str:
    """Figure text as plain words: tags dropped, entities unescaped."""
    return html.unescape(_TAGS.sub(" ", str(text))).replace("  ", " ").strip()
