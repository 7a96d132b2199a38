"""What the studio's pages draw: answer histograms as SVG geometry, diffs as rows, preview HTML.

Pure presentation over the authoring services' plain data; no queries, no writes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from quizzes.services.authoring import Preview
from quizzes.views.markup import render_inline, render_markdown_math

CHART_WIDTH = 520
CHART_HEIGHT = 150


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str

    @property
    def mid(self) -> float:
        return round(self.x + self.width / 2, 1)


@dataclass
class Chart:
    width: int
    height: int
    bars: list[Bar]
    low: str
    high: str


def quantity(value: float | None, unit: str | None) -> str:
    """A value as an author reads it: an engineer's prefix when the unit allows one."""
    if value is None:
        return "—"
    if unit:
        try:
            from content.physics import format_quantity

            return format_quantity(value, unit)
        except Exception:  # noqa: BLE001 - an odd unit still shows the number
            return f"{value:.3g} {unit}"
    return f"{value:.3g}"


def histogram(bins: list, unit: str | None) -> Chart:
    """Bars for ``[[low, high, count], ...]`` scaled to the tallest bin."""
    tallest = max((n for _, _, n in bins), default=0) or 1
    slot = CHART_WIDTH / max(len(bins), 1)
    bars = []
    for index, (low, high, count) in enumerate(bins):
        height = round((CHART_HEIGHT - 16) * count / tallest, 1)
        bars.append(
            Bar(
                x=round(index * slot + 2, 1),
                y=round(CHART_HEIGHT - height, 1),
                width=round(slot - 4, 1),
                height=height,
                count=count,
                label=f"{quantity(low, unit)} – {quantity(high, unit)}",
            )
        )
    low = quantity(bins[0][0], unit) if bins else ""
    high = quantity(bins[-1][1], unit) if bins else ""
    return Chart(CHART_WIDTH, CHART_HEIGHT, bars, low, high)


def report_view(summary: dict | None) -> dict | None:
    """The stored validation summary with its charts and readable numbers added."""
    if not summary:
        return None
    parts = []
    for part_id, stats in (summary.get("parts") or {}).items():
        unit = stats.get("unit")
        parts.append(
            {
                "id": part_id,
                "unit": unit,
                "low": quantity(stats.get("minimum"), unit),
                "high": quantity(stats.get("maximum"), unit),
                "chart": histogram(stats.get("histogram") or [], unit),
                "ratios": sorted((stats.get("common_error_ratios") or {}).items()),
            }
        )
    outcomes = sorted((summary.get("outcomes") or {}).items())
    return {**summary, "part_views": parts, "outcome_rows": outcomes}


@dataclass
class DiffRow:
    kind: str  # "hunk", "add", "del" or "same"
    old: int | None
    new: int | None
    text: str


def diff_rows(old: str, new: str, *, context: int = 3) -> list[DiffRow]:
    """A unified diff of two texts as rows with line numbers, for a readable HTML table."""
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    a, b = matcher.a, matcher.b
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        rows.append(
            DiffRow(
                "hunk", None, None, f"lines {first[1] + 1}–{last[2]} → {first[3] + 1}–{last[4]}"
            )
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows.extend(DiffRow("same", i + 1, j1 + i - i1 + 1, a[i]) for i in range(i1, i2))
                continue
            rows.extend(DiffRow("del", i + 1, None, a[i]) for i in range(i1, i2))
            rows.extend(DiffRow("add", None, j + 1, b[j]) for j in range(j1, j2))
    return rows


def preview_html(preview: Preview) -> dict:
    """The preview's Markdown turned into HTML the way the quiz pages render it."""
    return {
        "prompt": render_markdown_math(preview.prompt),
        "solution": render_markdown_math(preview.solution),
        "hints": [render_markdown_math(h) for h in preview.hints],
        "parts": [
            {
                "part": part,
                "prompt": render_markdown_math(part.prompt),
                "options": [(oid, render_inline(text)) for oid, text in part.options],
            }
            for part in preview.parts
        ],
    }
