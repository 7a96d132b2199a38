"""The gradebook's sortable column headers: each one's link (the page's other choices kept),
its `aria-sort` state and the arrow it shows. No queries."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode


@dataclass(frozen=True)
class Column:
    label: str
    href: str
    aria_sort: str  # "ascending", "descending" or "" (not the sorted column)
    title: str = ""
    out_of: float | None = None

    @property
    def arrow(self) -> str:
        return {"ascending": " ▲", "descending": " ▼"}.get(self.aria_sort, "")


def _href(kept: str, sort: str, direction: str) -> str:
    tail = urlencode([("sort", sort), ("dir", direction)])
    return f"?{kept}&{tail}" if kept else f"?{tail}"


def _column(label: str, key: str, *, sort: str, direction: str, kept: str, first: str, **extra):
    """A header sorting by `key`; a first click sorts in the `first` direction, a second
    click turns it round."""
    if sort == key:
        state = "descending" if direction == "desc" else "ascending"
        turn = "asc" if direction == "desc" else "desc"
    else:
        state, turn = "", first
    return Column(label, _href(kept, key, turn), state, **extra)


def columns(*, quizzes, scheme, sort: str, direction: str, kept: str) -> dict:
    """The student, course total and quiz headers for the current sort and order."""
    shared = {"sort": sort, "direction": direction, "kept": kept}
    return {
        "name": _column("Student", "name", first="asc", **shared),
        "total": _column(
            "Course total",
            "total",
            first="desc",
            title="Sort by course total",
            out_of=round(float(scheme.total_max), 2),
            **shared,
        ),
        "quizzes": [
            _column(
                quiz.title,
                quiz.slug,
                first="desc",
                title=f"Sort by {quiz.title}"
                + ("" if scheme.counts(quiz.pk) else " (not in the course total yet)"),
                out_of=(
                    round(float(scheme.possible[quiz.pk]), 2) if scheme.counts(quiz.pk) else None
                ),
                **shared,
            )
            for quiz in quizzes
        ],
    }
