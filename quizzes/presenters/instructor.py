"""What the instructor pages show, built from the instructor readers' rows: the dashboard's
score charts, the item index in the book's order or sorted by a column, the item page's tries
chart, one student's variants as they saw them with the answer key, and variant search rows.

A variant is drawn by the student pages' own renderer (`display.question_view`, from the
render cache), so the instructor sees exactly what the student saw. No queries of its own.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from courseware import caching
from health import heartbeat
from quizzes.presenters import display
from quizzes.presenters.charts import Chart, bar_chart
from quizzes.services import analytics, instructor
from quizzes.services.instructor import items

# ---------------------------------------------------------------- dashboard


def dashboard_page(offering, scope=None) -> dict:
    """The dashboard's rows with a chart per quiz and the first 25 students at risk (within
    `scope`, the analytics filter)."""
    context = instructor.dashboard(offering, scope=scope)
    context["at_risk_shown"] = context["at_risk"][:25]
    # Exam deadlines, regrades and grade passback wait for the task worker: say when it was
    # last seen, and warn when that is too long ago.
    context["worker"] = heartbeat.latest()
    for row in context["distributions"]:
        row["chart"] = bar_chart([b.count for b in row["bins"]], [b.label for b in row["bins"]])
    return context


# ---------------------------------------------------------------- item index and item page

# Sortable columns of the item index: query value -> ItemStats attribute, and their headers.
ITEM_SORTS = {
    "chapter": "chapter_slug",
    "title": "title",
    "answered": "observations",
    "mean": "mean_score",
    "first": "first_try_success",
    "p": "p_value",
    "r": "discrimination",
    "ul": "upper_lower",
}
ITEM_COLUMNS = [
    ("title", "Template"),
    ("chapter", "Chapter"),
    ("answered", "Answered"),
    ("mean", "Mean score"),
    ("first", "First-try success"),
    ("p", "Difficulty (p)"),
    ("r", "Discrimination (r)"),
    ("ul", "Upper−lower"),
]


# One row of the item index. Built with format_html_join (every value escaped) rather than a
# template loop: a row per template of the bank, and the loop was most of the page's time
# once its figures were kept (issue 34: within 10x the floor).
INDEX_ROW = (
    '<tr><td><a href="{}{}/{}">{}</a><div class="muted small">{}</div></td><td>{}</td>'
    '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'
    '<td class="num">{}</td><td class="num{}">{}</td><td class="num">{}</td></tr>'
)


def index_rows_html(rows: list[dict], items_url: str, row_query: str) -> SafeString:
    """The item index's table rows; `row_query` ("" or "?filter") follows each link.

    Only text is escaped (the page's link and filter once, each template's slug, title and
    chapter), with the standard library's `html.escape` that Django's `escape` wraps (without
    its lazy-string check): the figures are numbers this module formatted (`_index_row`).
    Escaping every value through `format_html_join` took five times as long (166 rows: 9.2
    against 1.7 ms)."""
    url, query = _escape(items_url), _escape(row_query)
    return mark_safe(
        "\n".join(
            INDEX_ROW.format(
                url,
                slug,
                query,
                _escape(r["title"]),
                slug,
                _escape(r["chapter"]),
                _figure(str(r["answered"])),
                _figure(r["mean"]),
                _figure(r["first"]),
                _figure(r["p"]),
                " low" if r["low"] else "",
                _figure(r["r"]),
                _figure(r["ul"]),
            )
            for r in rows
            for slug in [_escape(r["slug"])]
        )
    )


def _escape(text) -> str:
    return html.escape(str(text))


def _figure(text: str) -> str:
    """A figure `_percent` or `_decimal` made: digits, a sign, a point, "%" or "—" only (so
    nothing to escape; anything else is escaped all the same)."""
    return text if _FIGURE.fullmatch(text) else _escape(text)


_FIGURE = re.compile(r"[-0-9.%—]*")


CHAPTER_ITEM = '<li><span class="chapter">{}</span> <span class="count" title="{}">{}</span></li>'
PLACE_ITEM = '<li><a href="{}{}/#wrong">{}</a> <span class="muted small">{}</span></li>'


# The map's table rows by the rows' key (`items.misconception_page`: the kept figures and the
# book they were drawn with) and its links: 57 rows through the template engine were most of
# a view's time (issue 34).
_rows_html = caching.local_cache(
    "misconception map rows HTML",
    max_bytes=8 * 1024 * 1024,
    why="the map's table drawn once per refresh of its kept figures, not on every view",
)


def misconception_rows_html(
    rows: list[dict], *, items_url: str, gradebook_url: str, key=None
) -> SafeString:
    """The map's table rows (`instructor/_misconception_rows.html`); with the rows' `key`
    (kept figures), drawn once per key and links."""

    def draw() -> SafeString:
        misconception_where_html(rows, items_url)
        context = {"rows": rows, "gradebook_url": gradebook_url}
        return render_to_string("instructor/_misconception_rows.html", context)

    if key is None:
        return draw()
    return _rows_html.get_or_build((key, items_url, gradebook_url), draw)


def misconception_where_html(rows: list[dict], items_url: str) -> None:
    """Give each misconception row its "Where" cell: its chapters, its `TOP_PLACES` templates
    and the rest folded under "and N more" (format_html_join, as `index_rows_html`: a line
    per place was most of the page's time)."""
    for row in rows:
        row["where_html"] = _where_html(row, items_url)


def _where_html(row: dict, items_url: str) -> SafeString:
    chapters = format_html_join(
        "",
        CHAPTER_ITEM,
        ((c["title"], c["responses_text"], c["students_text"]) for c in row["chapters"]),
    )
    top, more = (
        format_html_join(
            "",
            PLACE_ITEM,
            ((items_url, t["slug"], t["slug"], t["students_text"]) for t in places),
        )
        for places in (row["top_templates"], row["more_templates"])
    )
    folded = (
        format_html(
            '<details class="more"><summary>and {} more</summary>\n'
            '          <ul class="places">{}</ul>\n        </details>',
            len(row["more_templates"]),
            more,
        )
        if row["more_templates"]
        else ""
    )
    return format_html(
        '<ul class="chapters">{}</ul>\n        <ul class="places">{}</ul>\n        {}',
        chapters,
        top,
        folded,
    )


def _index_row(t) -> dict:
    """One template's row of the item index, formatted (as `floatformat:2` and `widthratio`
    would) for `index_rows_html`."""
    return {
        "slug": t.slug,
        "title": t.title,
        "chapter": t.chapter_title or "—",
        "answered": t.observations,
        "mean": _percent(t.mean_score),
        "first": _percent(t.first_try_success),
        "p": _decimal(t.p_value),
        "r": _decimal(t.discrimination),
        "low": t.discrimination is not None and t.discrimination < 0.1,
        "ul": _decimal(t.upper_lower),
    }


def _percent(value: float | None) -> str:
    """A fraction as a whole percentage, rounded as `widthratio` rounds; "—" for none."""
    return "—" if value is None else f"{round(value * 100)}%"


def _decimal(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def item_index_page(
    offering, *, sort: str = "chapter", descending: bool = False, scope=None, counters=None
) -> dict:
    """Every template's statistics (within the analytics filter's `scope`), in the book's
    chapter order or sorted by one column (`counters`: as `items.item_index`)."""
    stats, chapters, kept = items.item_index(offering, scope, counters=counters)
    titles = dict(chapters)
    book_order = {slug: n for n, (slug, _) in enumerate(chapters)}
    for t in stats:
        t.chapter_title = titles.get(t.chapter_slug or "", t.chapter_slug or "")
    if sort not in ITEM_SORTS:
        sort = "chapter"
    if sort == "chapter":
        # The book's reading order, then the template's title; templates of no chapter last.
        stats.sort(key=lambda t: (book_order.get(t.chapter_slug or "", len(book_order)), t.title))
        if descending:
            stats.reverse()
    else:
        # A template with no figure yet goes last whichever the direction.
        name = ITEM_SORTS[sort]
        known = [t for t in stats if getattr(t, name) is not None]
        unknown = [t for t in stats if getattr(t, name) is None]
        known.sort(key=lambda t: (getattr(t, name), t.title), reverse=descending)
        stats = known + unknown
    columns = [
        (key, label, key == sort, "desc" if key == sort and not descending else "asc")
        for key, label in ITEM_COLUMNS
    ]
    return {
        "templates": stats,
        "rows": [_index_row(t) for t in stats],
        "sort": sort,
        "descending": descending,
        "columns": columns,
        "kept": kept,
        # Each row's link is this and the template's slug (a slug needs no quoting): one
        # reverse() for the page instead of one per template of the bank.
        "items_url": reverse("instructor:item_index", args=[offering.slug]),
    }


def tries_chart(tries: list[dict]) -> Chart:
    """Parts by the number of counted tries they took."""
    return bar_chart(
        [row["solved"] + row["unsolved"] for row in tries], [str(row["tries"]) for row in tries]
    )


def item_analysis_page(offering, slug: str, quiz_slug: str | None = None, scope=None) -> dict:
    context = items.item_page(offering, slug, quiz_slug, scope=scope)
    context["tries_chart"] = tries_chart(context["stats"].tries)
    return context


# ---------------------------------------------------------------- one student's variants


@dataclass
class VariantPart:
    id: str
    kind: str = ""
    prompt: SafeString | str = ""
    answer: SafeString | str = ""
    responses: list = field(default_factory=list)


@dataclass
class VariantView:
    """A stored variant as its student saw it, each part with its answer key and responses."""

    parameters: list[tuple[str, str]]
    parts: list[VariantPart]
    prompt: SafeString | str = ""
    error: str = ""


def parameter_list(parameters: dict | None) -> list[tuple[str, str]]:
    """(name, value as shown) of a variant's stored parameters."""
    return [(k, analytics.parameter_text(v)) for k, v in (parameters or {}).items()]


def variant_view(row) -> VariantView:
    """The prompt as the student saw it, and each part's answer key and responses."""
    responses: dict[str, list] = {}
    for response in row.response_list:
        responses.setdefault(response.part_id, []).append(response)
    parameters = parameter_list(row.parameters)
    try:
        question = display.question_view(row)
        parts = [
            VariantPart(
                id=part.id,
                kind=part.kind,
                prompt=part.prompt_html,
                # The instructor may always see the key: the student pages' release rule is
                # about students.
                answer=display.correct_answer_html(row, part),
                responses=responses.pop(part.id, []),
            )
            for part in question.parts
        ]
    except Exception as exc:  # noqa: BLE001 - an unreadable old version must not hide the history
        return VariantView(
            parameters=parameters,
            parts=[VariantPart(id=pid, responses=rs) for pid, rs in responses.items()],
            error=f"This version could not be rendered ({exc.__class__.__name__}).",
        )
    parts += [VariantPart(id=pid, responses=rs) for pid, rs in responses.items()]
    return VariantView(parameters=parameters, parts=parts, prompt=question.prompt_html)


def student_page(offering, student, *, failed_override: dict | None = None) -> dict:
    """One student's history, each variant drawn, a refused override back in its own form."""
    history = instructor.student_history(offering, student)
    for attempt in history["attempts"]:
        for variant in attempt.variant_list:
            variant.view = variant_view(variant)
        failed = failed_override
        attempt.failed_override = failed if failed and failed["attempt"] == attempt.pk else None
    return {"student": student, **history}


# ---------------------------------------------------------------- variant search


def variant_search_page(offering, *, slug: str, text: str) -> dict:
    """The search form's choices and, when something was asked, the variants that match."""
    results, error, searched = [], "", bool(slug or text)
    if searched:
        try:
            filters = instructor.parse_parameter_filters(text)
        except ValidationError as exc:
            error = " ".join(exc.messages)
        else:
            results = instructor.variant_search(offering, template_slug=slug, filters=filters)
    for row in results:
        row.parameter_list = parameter_list(row.parameters)
    return {
        "templates": items.template_choices(offering),
        "template_slug": slug,
        "params": text,
        "results": results,
        "students": len({row.attempt.student_id for row in results}),
        "error": error,
        "searched": searched,
    }
