"""What the studio's pages draw: answer histograms as SVG geometry, diffs as rows, preview HTML.

Pure presentation over the authoring services' plain data; no queries, no writes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from quizzes.engine import kinds
from quizzes.presenters.charts import Chart, bar_chart
from quizzes.presenters.display import PartView, answer_key_html, part_view
from quizzes.presenters.figures import figure_html
from quizzes.presenters.markup import render_markdown_math
from quizzes.services.authoring import Preview, PreviewPart

CHART_WIDTH = 520
CHART_HEIGHT = 150


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
    return bar_chart(
        [count for _, _, count in bins],
        [f"{quantity(low, unit)} – {quantity(high, unit)}" for low, high, _ in bins],
        width=CHART_WIDTH,
        height=CHART_HEIGHT,
        gap=4,
        low=quantity(bins[0][0], unit) if bins else "",
        high=quantity(bins[-1][1], unit) if bins else "",
    )


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


# difflib's matcher (autojunk off, so that a template's blank and comment lines are matched as
# lines) costs up to the cube of the number of repeated lines: 1,000 alternating comment lines,
# 2 kB of draft, held a worker for 50 s. The lines both texts share at the start and the end are
# matched cheaply; the rest is matched line by line only while it is small, else it is shown as
# one rewrite (still a correct diff, only not the shortest one).
MAX_MATCHED_LINES = 20_000  # lines of the old middle times lines of the new (about 140 × 140)
TOO_MANY = "these versions differ in too many lines to match them up one by one; all are shown"


class _Opcodes(difflib.SequenceMatcher):
    """difflib's grouping over opcodes computed here."""

    def __init__(self, opcodes: list[tuple[str, int, int, int, int]]) -> None:
        super().__init__(a=[], b=[], autojunk=False)
        self._given = opcodes

    def get_opcodes(self):
        return list(self._given)


def _opcodes(a: list[str], b: list[str]) -> tuple[list[tuple[str, int, int, int, int]], bool]:
    """The opcodes from `a` to `b`, and whether the middle was too large to match."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a_end, b_end = len(a) - tail, len(b) - tail
    codes = [("equal", 0, head, 0, head)] if head else []
    whole = False
    if (a_end - head) * (b_end - head) <= MAX_MATCHED_LINES:
        middle = difflib.SequenceMatcher(a=a[head:a_end], b=b[head:b_end], autojunk=False)
        for tag, i1, i2, j1, j2 in middle.get_opcodes():
            codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    else:
        whole = True
        codes.append(("replace", head, a_end, head, b_end))
    if tail:
        codes.append(("equal", a_end, len(a), b_end, len(b)))
    return codes, whole


def diff_rows(old: str, new: str, *, context: int = 3) -> list[DiffRow]:
    """A unified diff of two texts as rows with line numbers, for a readable HTML table."""
    rows: list[DiffRow] = []
    a, b = old.splitlines(), new.splitlines()
    codes, whole = _opcodes(a, b)
    for group in _Opcodes(codes).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        label = f"lines {first[1] + 1}–{last[2]} → {first[3] + 1}–{last[4]}"
        rows.append(DiffRow("hunk", None, None, f"{label}: {TOO_MANY}" if whole else label))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows.extend(DiffRow("same", i + 1, j1 + i - i1 + 1, a[i]) for i in range(i1, i2))
                continue
            rows.extend(DiffRow("del", i + 1, None, a[i]) for i in range(i1, i2))
            rows.extend(DiffRow("add", None, j + 1, b[j]) for j in range(j1, j2))
    return rows


@dataclass
class StudioPart:
    """A previewed part as its kind's ``input.html`` reads it, the same fields as a student's
    part (``presenters.student_parts.StudentPart``): the try box is the student's input."""

    view: PartView
    part: PreviewPart
    current: Any
    number: int
    answer_html: Any = ""
    preview_url: str = ""

    @property
    def dom(self) -> str:
        return f"try-{self.view.id}"

    @property
    def input_name(self) -> str:
        return f"response_{self.view.id}"

    @property
    def label(self) -> str:
        return f"Part {self.view.id}"

    @property
    def max_length(self) -> int:
        return kinds.max_answer_length(self.view.kind)


def _studio_part(part: PreviewPart, number: int) -> StudioPart:
    view = part_view(part.rendered)
    kind = kinds.kind_for(part.part)
    tried = kind.draft(part.response) if part.response is not None else ""
    return StudioPart(
        view=view,
        part=part,
        current=kind.input_state(view.facts, tried),
        number=number,
        answer_html=answer_key_html(part.part, part.value, view),
    )


def preview_html(preview: Preview) -> dict:
    """The preview's Markdown turned into HTML the way the quiz pages render it, each part
    drawn by its kind's own input and answer key."""
    parts = [_studio_part(part, n) for n, part in enumerate(preview.parts, start=1)]
    return {
        "prompt": render_markdown_math(preview.prompt),
        "figure": figure_html(preview.figure),
        "solution": render_markdown_math(preview.solution),
        "hints": [render_markdown_math(h) for h in preview.hints],
        "parts": parts,
        # what the kinds' inputs read of the question ("Question 1, part t" for a screen reader)
        "block": {"number": 1, "parts": parts},
    }
