"""Server-side SVG charts: bar charts and line/area charts as inline ``<svg class="chart">`` markup.

No JavaScript and no external library: each chart is a self-contained SVG
fragment (well-formed XML) with a ``<title>`` naming the chart, axis tick labels,
and a ``<title>`` tooltip on every bar and point.  Every label passes through
:func:`markupsafe.escape`, so crawled strings (host names, URLs) cannot inject
markup; the result is a :class:`markupsafe.Markup` that Jinja inserts as is.
Values are scaled to a "nice" axis maximum (1, 2, 2.5 or 5 × 10ⁿ); empty data,
all-zero data and huge numbers (shown as 1.2k / 3.4M / 5.6G …) all render.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

PALETTE = ("#2456c8", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700")
"""Series colours: dark enough to read on white, distinct from one another."""
WIDTH, HEIGHT = 480, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 30, 36
MAX_X_LABELS = 16
FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def format_number(value: float) -> str:
    """Short form of a number: ``950``, ``1.2k``, ``3.4M``, ``5G`` …; fractions below 10 keep one decimal."""
    if value is None or math.isnan(value):
        return "–"
    magnitude = abs(value)
    for limit, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:.3g}{suffix}"
    if magnitude and magnitude < 10 and value != int(value):
        return f"{value:.1f}"
    return f"{value:.0f}"


def nice_max(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10ⁿ that is ≥ ``value`` (1 for values ≤ 0)."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value * (1 - 1e-12):
            return step * power
    return 10 * power


def axis_top(values: Sequence[float]) -> float:
    """The axis maximum for ``values``: :func:`nice_max`, and at least 5 for whole numbers (no 0.2 ticks)."""
    top = nice_max(max(values))
    return max(top, 5.0) if all(float(v).is_integer() for v in values) else top


def _open(title: str, width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    return [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="100%" role="img" aria-label="{escape(title)}" preserveAspectRatio="xMinYMin meet">',
            f"<title>{escape(title)}</title>",
            f'<text x="{LEFT}" y="16" {FONT} font-weight="600" fill="#1d2330">{escape(title)}</text>']


def _empty(title: str, message: str) -> Markup:
    parts = _open(title, WIDTH, 80)
    parts.append(f'<text x="{WIDTH // 2}" y="52" {FONT} text-anchor="middle" fill="#5b6475">{escape(message)}</text>')
    return Markup("".join(parts) + "</svg>")


def _y_axis(top: float, y_label: str) -> list[str]:
    """Grid lines and tick labels for 0 … ``top`` (five intervals)."""
    plot_h = HEIGHT - TOP - BOTTOM
    out = []
    for i in range(6):
        value = top * i / 5
        y = HEIGHT - BOTTOM - plot_h * i / 5
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#e3e6eb"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" {FONT} text-anchor="end" fill="#5b6475">'
                   f"{escape(format_number(value))}</text>")
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="#5b6475"/>')
    out.append(f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" '
               f'stroke="#5b6475"/>')
    if y_label:
        out.append(f'<text x="12" y="{TOP + plot_h / 2:.1f}" {FONT} text-anchor="middle" fill="#5b6475" '
                   f'transform="rotate(-90 12 {TOP + plot_h / 2:.1f})">{escape(y_label)}</text>')
    return out


def _x_labels(labels: Sequence[str], centers: Sequence[float]) -> list[str]:
    step = max(1, math.ceil(len(labels) / MAX_X_LABELS))
    return [f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" {FONT} text-anchor="middle" fill="#5b6475">'
            f"{escape(label)}</text>"
            for i, (label, x) in enumerate(zip(labels, centers, strict=True)) if i % step == 0]


def _tips(labels: Sequence[str], tips: Sequence[str] | None) -> Sequence[str]:
    if tips is not None and len(tips) != len(labels):
        raise ValueError("tips and labels differ in length")
    return tips if tips is not None else labels


def bar_chart(labels: Sequence[str], values: Sequence[float], *, title: str, tips: Sequence[str] | None = None,
              y_label: str = "", color: str = PALETTE[0], empty: str = "no data yet") -> Markup:
    """Vertical bars, one per label; tooltip ``"<tip>: <value>"`` (``tips`` default to the labels)."""
    if len(labels) != len(values):
        raise ValueError("labels and values differ in length")
    if not values:
        return _empty(title, empty)
    tips = _tips(labels, tips)
    top = axis_top([float(v) for v in values])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(values)
    bar_w = max(1.0, slot * 0.7)
    parts = _open(title) + _y_axis(top, y_label)
    centers = []
    for i, (tip, value) in enumerate(zip(tips, values, strict=True)):
        height = plot_h * max(0.0, float(value)) / top
        x = LEFT + slot * i + (slot - bar_w) / 2
        centers.append(LEFT + slot * (i + 0.5))
        parts.append(f'<rect x="{x:.1f}" y="{HEIGHT - BOTTOM - height:.1f}" width="{bar_w:.1f}" '
                     f'height="{height:.1f}" fill="{escape(color)}"><title>{escape(tip)}: '
                     f"{escape(f'{value:,}')}</title></rect>")
    parts += _x_labels(labels, centers)
    return Markup("".join(parts) + "</svg>")


def hbar_chart(labels: Sequence[str], values: Sequence[float], *, title: str, color: str = PALETTE[0],
               empty: str = "no data yet") -> Markup:
    """Horizontal bars (for long labels such as status names), each with its value at its end."""
    if len(labels) != len(values):
        raise ValueError("labels and values differ in length")
    if not values:
        return _empty(title, empty)
    row, label_w, value_w = 22, 130, 50
    height = TOP + row * len(values) + 8
    top = max(max(float(v) for v in values), 1.0)
    span = WIDTH - label_w - value_w - RIGHT
    parts = _open(title, WIDTH, height)
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = TOP + row * i
        w = span * max(0.0, float(value)) / top
        parts.append(f'<text x="{label_w - 8}" y="{y + 15}" {FONT} text-anchor="end" fill="#1d2330">'
                     f"{escape(label)}</text>")
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{max(w, 1.0):.1f}" height="{row - 6}" '
                     f'fill="{escape(color)}"><title>{escape(label)}: {escape(f"{value:,}")}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" {FONT} fill="#5b6475">'
                     f"{escape(format_number(float(value)))}</text>")
    return Markup("".join(parts) + "</svg>")


def line_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], *, title: str,
               tips: Sequence[str] | None = None, y_label: str = "", area: bool = False,
               empty: str = "no data yet") -> Markup:
    """One line per ``(name, values)`` series over the labels; ``None`` values break the line.

    ``area`` fills under each line (translucent).  With more than one series a legend
    names them.  Every point carries a tooltip ``"<tip> — <name>: <value>"``.
    """
    if any(len(values) != len(labels) for _, values in series):
        raise ValueError("a series and the labels differ in length")
    known = [float(v) for _, values in series for v in values if v is not None]
    if not labels or not known:
        return _empty(title, empty)
    tips = _tips(labels, tips)
    top = axis_top(known)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(labels)
    xs = [LEFT + slot * (i + 0.5) for i in range(len(labels))]
    parts = _open(title) + _y_axis(top, y_label)
    base = HEIGHT - BOTTOM
    for index, (name, values) in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        runs: list[list[tuple[float, float]]] = [[]]
        for x, value in zip(xs, values, strict=True):
            if value is None:
                runs.append([])
            else:
                runs[-1].append((x, base - plot_h * max(0.0, float(value)) / top))
        for run in filter(None, runs):
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            if area:
                parts.append(f'<polygon points="{run[0][0]:.1f},{base} {points} {run[-1][0]:.1f},{base}" '
                             f'fill="{color}" fill-opacity="0.15" stroke="none"/>')
            parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, value, tip in zip(xs, values, tips, strict=True):
            if value is not None:
                y = base - plot_h * max(0.0, float(value)) / top
                shown = f"{value:,.2f}" if value != int(value) else f"{int(value):,}"
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"><title>{escape(tip)} — '
                             f"{escape(name)}: {escape(shown)}</title></circle>")
    if len(series) > 1:  # legend, right-aligned on the title's line
        x = WIDTH - RIGHT - sum(24 + 7 * len(name) for name, _ in series)
        for index, (name, _) in enumerate(series):
            color = PALETTE[index % len(PALETTE)]
            parts.append(f'<rect x="{x}" y="7" width="10" height="10" fill="{color}"/>'
                         f'<text x="{x + 14}" y="16" {FONT} fill="#1d2330">{escape(name)}</text>')
            x += 24 + 7 * len(name)
    parts += _x_labels(labels, xs)
    return Markup("".join(parts) + "</svg>")
