"""WCAG 2 contrast between two colours, for the tests that check a text is readable on its
background: a ratio of 4.5 or more is WCAG AA for normal text. A test module imports this
from here, never from another test module."""

from __future__ import annotations

from collections.abc import Sequence

AA = 4.5


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` as three 0-255 channels."""
    digits = hex_colour.lstrip("#")
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def luminance(colour: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour given as 0-255 channels."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
              for c in (channel / 255 for channel in colour[:3])]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(one: Sequence[float], other: Sequence[float]) -> float:
    """(lighter + 0.05) / (darker + 0.05): 1 for equal colours, 21 for black on white."""
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
