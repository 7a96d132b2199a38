"""Item and class statistics for the instructor pages: item analysis, breakdowns by parameter,
the misconception map, and the pure statistics they rest on.

Every reader here runs a fixed number of queries whatever the class size: rows are aggregated in
the database or read once with `values_list` and folded in one Python pass.

Definitions (fractions are of an item's points, 0..1):
- an observation is one submitted attempt's item; its score is the best non-practice variant;
- mean score: the mean of those fractions;
- difficulty (p-value): the share of observations with full credit;
- first-try success: the share of parts of first variants answered correctly at try 1;
- discrimination: the point-biserial (Pearson) correlation of the item's fraction with the
  rest-of-quiz score in points, and the upper-lower index on the 27% best and worst totals.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from django.db.models import Count, Max, Q
from django.urls import NoReverseMatch, reverse
from django.utils.text import Truncator

from courseware import caching
from courseware.models import Chapter
from courseware.services import section_heading, section_headings
from quizzes.models import (
    AttemptStatus,
    QuestionTemplate,
    QuizItem,
    Response,
    ResponseStatus,
    Variant,
)

FULL_CREDIT = 0.999
# A numeric parameter with at most this many distinct values is shown as categories.
MAX_NUMERIC_CATEGORIES = 6

# ---------------------------------------------------------------- pure statistics


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None when there are fewer than two pairs or either side has no spread."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return sxy / math.sqrt(sxx * syy)


def point_biserial(item: Sequence[float], rest: Sequence[float]) -> float | None:
    """Correlation of an item's score with the rest-of-quiz score.

    For a right/wrong item this is the point-biserial coefficient
    r = (M1 - M0) / s * sqrt(p q), which equals Pearson's r; partial credit uses Pearson's r.
    """
    return pearson(item, rest)


def upper_lower_index(item: Sequence[float], total: Sequence[float], share: float = 0.27):
    """Mean item score of the top `share` of totals minus that of the bottom `share`."""
    n = len(item)
    size = max(1, round(n * share)) if n else 0
    if n < 2 or size * 2 > n:
        return None
    ranked = sorted(zip(total, item), key=lambda pair: pair[0])
    lower = [score for _, score in ranked[:size]]
    upper = [score for _, score in ranked[-size:]]
    return sum(upper) / size - sum(lower) / size


@dataclass(frozen=True)
class Bin:
    label: str
    low: float
    high: float
    count: int


def histogram(values: Iterable[float], *, bins: int = 10, low: float = 0.0, high: float = 1.0):
    """Counts of `values` in `bins` equal bins over [low, high]; the top edge is inclusive."""
    counts = [0] * bins
    width = (high - low) / bins
    for value in values:
        if value is None:
            continue
        index = int((value - low) / width) if width else 0
        counts[min(max(index, 0), bins - 1)] += 1
    return [
        Bin(
            _bin_label(low + i * width, low + (i + 1) * width),
            low + i * width,
            low + (i + 1) * width,
            counts[i],
        )
        for i in range(bins)
    ]


def _bin_label(a: float, b: float) -> str:
    return f"{a * 100:.0f}–{b * 100:.0f}%"


# ---------------------------------------------------------------- presentation helpers


def parameter_text(value) -> str:
    """A stored parameter as the student saw it named: catalog entries by their key."""
    if isinstance(value, dict):
        if "key" in value:
            return str(value["key"])
        return ", ".join(f"{k}={parameter_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(parameter_text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


@dataclass(frozen=True)
class MisconceptionInfo:
    code: str
    title: str
    explanation: str = ""
    url: str = ""


def misconception_info(code: str) -> MisconceptionInfo:
    """Title and chapter link of a diagnosis code from `content.misconceptions`, when it has it."""
    if not code:
        return MisconceptionInfo(code="", title="Not recognised")
    try:
        from content.misconceptions import misconception
    except ImportError:
        return MisconceptionInfo(code=code, title=code.replace("-", " ").capitalize())
    try:
        entry = misconception(code)
    except (KeyError, LookupError, ValueError):
        return MisconceptionInfo(code=code, title=code.replace("-", " ").capitalize())
    title = _field(entry, "title") or code
    slug, anchor = (
        _field(entry, "chapter_slug") or _field(entry, "chapter"),
        _field(entry, "anchor"),
    )
    url = ""
    if slug:
        try:
            url = reverse("courseware:chapter_detail", args=[slug])
        except NoReverseMatch:
            url = ""
        if url and anchor:
            url += f"#{anchor}"
    return MisconceptionInfo(code, str(title), str(_field(entry, "explanation") or ""), url)


def explained_in(info: MisconceptionInfo, book: dict[str, tuple[str, str]], headings=None) -> str:
    """A link text that says where `info.url` goes: "Numeric precision: Bits and bytes".
    `headings`, a dict the caller keeps, holds each chapter's `section_headings` once read."""
    path, _, anchor = info.url.partition("#")
    slug = path.rstrip("/").rsplit("/", 1)[-1] if path else ""
    if slug not in book:
        return ""
    title, source = book[slug]
    if headings is None:
        heading = section_heading(source, anchor)
    else:
        if slug not in headings:
            headings[slug] = section_headings(source)
        heading = headings[slug].get(anchor, "") if anchor else ""
    return f"{title}: {heading}" if heading else title


def _field(entry, name: str):
    if isinstance(entry, dict):
        return entry.get(name)
    return getattr(entry, name, None)


# ---------------------------------------------------------------- item analysis


@dataclass
class ItemStats:
    template_id: int
    slug: str
    title: str
    chapter_slug: str
    observations: int = 0
    mean_score: float | None = None
    p_value: float | None = None
    first_try_success: float | None = None
    discrimination: float | None = None
    upper_lower: float | None = None
    tries: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    by_parameter: list = field(default_factory=list)
    by_outcome: list = field(default_factory=list)


def _observations(quiz_ids: Iterable[int], scope: AnalyticsScope | None = None):
    """(attempt, item, quiz, points, best fraction) of every submitted attempt's items (within
    `scope`: its quiz, its group's students, submitted in its days)."""
    variants = Variant.objects.filter(
        attempt__quiz_id__in=list(quiz_ids),
        attempt__status=AttemptStatus.SUBMITTED,
        is_practice=False,
    )
    if scope is not None:
        variants = scope.attempts(variants, "attempt__")
    rows = (
        variants.values("attempt_id", "item_id", "item__points", "item__template_id")
        .annotate(best=Max("score"))
        .values_list("attempt_id", "item_id", "item__template_id", "item__points", "best")
    )
    return list(rows)


def _discrimination(observations, wanted) -> dict:
    """Per key of `wanted(template_id, item_id)`: (item fractions, rest scores, totals)."""
    totals: dict[int, float] = defaultdict(float)
    for attempt_id, _item, _template, points, best in observations:
        totals[attempt_id] += float(points) * best
    series: dict = defaultdict(lambda: ([], [], []))
    for attempt_id, item_id, template_id, points, best in observations:
        key = wanted(template_id, item_id)
        if key is None:
            continue
        fractions, rest, total = series[key]
        fractions.append(best)
        rest.append(totals[attempt_id] - float(points) * best)
        total.append(totals[attempt_id])
    return series


def _headline(stats: ItemStats, fractions, rest, totals) -> None:
    stats.observations = len(fractions)
    stats.mean_score = mean(fractions)
    stats.p_value = (
        sum(1 for f in fractions if f >= FULL_CREDIT) / len(fractions) if fractions else None
    )
    stats.discrimination = point_biserial(fractions, rest)
    stats.upper_lower = upper_lower_index(fractions, totals)


def template_index(offering, scope: AnalyticsScope | None = None) -> list[ItemStats]:
    """Headline numbers in the offering of every template of the bank (four queries), within
    `scope` (the analytics filter: one quiz, a group's students, a range of days) if given."""
    return index_rows(offering, index_figures(offering, scope))


# The headline figures the item index shows, as kept (`index_figures`).
HEADLINE = (
    "observations",
    "mean_score",
    "p_value",
    "first_try_success",
    "discrimination",
    "upper_lower",
)


def index_figures(offering, scope: AnalyticsScope | None = None) -> dict[str, dict]:
    """{template id (as a JSON key): its `HEADLINE` figures} of every template the offering's
    quizzes asked and students answered, computed from every stored grade (three queries, all
    linear in the responses: the cost the kept statistics move off the page)."""
    quiz_ids = set(
        QuizItem.objects.filter(quiz__offering=offering).values_list("quiz_id", flat=True)
    )
    if scope is not None and scope.quiz is not None:
        quiz_ids &= {scope.quiz.pk}
    series = _discrimination(_observations(quiz_ids, scope), lambda template, item: template)
    where = Q(variant__item__quiz_id__in=list(quiz_ids)) & _response_scope(scope)
    first = _first_try_rates(where, "variant__item__template_id")
    figures = {}
    for template_id in {*series, *first}:
        stats = ItemStats(template_id, "", "", "")
        _headline(stats, *series.get(template_id, ([], [], [])))
        stats.first_try_success = first.get(template_id)
        figures[str(template_id)] = {name: getattr(stats, name) for name in HEADLINE}
    return figures


def index_rows(offering, figures: dict[str, dict]) -> list[ItemStats]:
    """Every template of the bank (one query, the bank's size) with its figures, if any."""
    templates = QuestionTemplate.objects.for_course(offering.course_id).values_list(
        "id", "slug", "title", "chapter_slug"
    )
    empty = ItemStats(0, "", "", "")
    _headline(empty, [], [], [])
    blank = {name: getattr(empty, name) for name in HEADLINE}
    return [
        ItemStats(template_id, slug, title, chapter, **figures.get(str(template_id), blank))
        for template_id, slug, title, chapter in templates
    ]


def _first_try_rates(scope: Q, key: str) -> dict:
    rows = (
        Response.objects.filter(scope, try_number=1, variant__index=0)
        .values(key)
        .annotate(n=Count("id"), right=Count("id", filter=Q(status=ResponseStatus.CORRECT)))
        .values_list(key, "n", "right")
    )
    return {k: right / n for k, n, right in rows if n}


def item_analysis(
    template: QuestionTemplate,
    *,
    offering=None,
    quiz=None,
    item_rows=None,
    scope: AnalyticsScope | None = None,
) -> ItemStats:
    """Everything the item page shows for a template in one offering, or for its item in one
    quiz, computed from every stored grade (within `scope`, the analytics filter: a group's
    students, attempts submitted and answers given in a range of days). `item_rows`, (item id,
    quiz id) of those items (of one offering), saves a query when the caller has read them;
    without them, `offering` says whose items."""
    if item_rows is None:
        offering = offering if offering is not None else quiz.offering
        items = QuizItem.objects.filter(template=template, quiz__offering=offering)
        if quiz is not None:
            items = items.filter(quiz=quiz)
        item_rows = list(items.values_list("id", "quiz_id"))
    item_ids = {item for item, _ in item_rows}
    stats = ItemStats(template.pk, template.slug, template.title, template.chapter_slug)
    series = _discrimination(
        _observations({q for _, q in item_rows}, scope),
        lambda _template, item: "this" if item in item_ids else None,
    )
    _headline(stats, *series.get("this", ([], [], [])))
    where = Q(variant__item_id__in=item_ids) & _response_scope(scope)
    stats.first_try_success = _first_try_rates(where, "variant__item__template_id").get(template.pk)
    stats.tries = tries_histogram(where)
    stats.wrong = common_wrong_responses(where)
    stats.by_parameter, stats.by_outcome = parameter_breakdown(item_ids, scope)
    return stats


def _response_scope(scope: AnalyticsScope | None) -> Q:
    """The analytics filter as a condition on responses (answers given in its days)."""
    where = Q()
    if scope is None:
        return where
    if scope.group is not None:
        where &= Q(variant__attempt__student__group_memberships__group=scope.group)
    if scope.since is not None:
        where &= Q(created_at__gte=scope.since)
    if scope.until is not None:
        where &= Q(created_at__lt=scope.until)
    return where


def tries_histogram(scope: Q) -> list[dict]:
    """How many counted tries each part took: solved at try n, or never solved."""
    rows = (
        Response.objects.filter(scope, try_number__isnull=False, variant__is_practice=False)
        .values("variant_id", "part_id")
        .annotate(
            tries=Max("try_number"),
            solved=Count("id", filter=Q(status=ResponseStatus.CORRECT)),
        )
        .values_list("tries", "solved")
    )
    solved: Counter = Counter()
    unsolved: Counter = Counter()
    for tries, right in rows:
        (solved if right else unsolved)[tries] += 1
    top = max([*solved, *unsolved], default=0)
    total = sum(solved.values()) + sum(unsolved.values())
    return [
        {
            "tries": n,
            "solved": solved[n],
            "unsolved": unsolved[n],
            "share": (solved[n] + unsolved[n]) / total if total else 0.0,
        }
        for n in range(1, top + 1)
    ]


def common_wrong_responses(scope: Q, *, examples: int = 3) -> list[dict]:
    """Incorrect responses grouped by diagnosis, most frequent first, with typical answers."""
    wrong = Response.objects.filter(scope, status=ResponseStatus.INCORRECT)
    groups = list(
        wrong.values("diagnosis")
        .annotate(n=Count("id"), students=Count("variant__attempt__student", distinct=True))
        .order_by("-n", "diagnosis")
        .values_list("diagnosis", "n", "students")
    )
    raws: dict[str, list] = defaultdict(list)
    for diagnosis, raw, n in (
        wrong.values("diagnosis", "raw")
        .annotate(n=Count("id"))
        .order_by("-n", "raw")
        .values_list("diagnosis", "raw", "n")[:200]
    ):
        if len(raws[diagnosis]) < examples:
            raws[diagnosis].append({"raw": raw, "count": n})
    return [
        {
            "diagnosis": diagnosis,
            "info": misconception_info(diagnosis),
            "count": n,
            "students": students,
            "examples": raws[diagnosis],
        }
        for diagnosis, n, students in groups
    ]


def parameter_breakdown(item_ids, scope: AnalyticsScope | None = None):
    """Mean variant score by each categorical parameter value, and by outcome category."""
    by_value: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    by_outcome: dict[str, list] = defaultdict(list)
    numeric: set[str] = set()
    variants = Variant.objects.filter(
        item_id__in=list(item_ids), attempt__status=AttemptStatus.SUBMITTED, is_practice=False
    )
    if scope is not None:
        variants = scope.attempts(variants, "attempt__")
    for parameters, outcome, score in variants.values_list("parameters", "outcome", "score"):
        for name, value in (parameters or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numeric.add(name)
            by_value[name][parameter_text(value)].append(score)
        if outcome:
            by_outcome[outcome].append(score)
    parameters = []
    for name in sorted(by_value):
        values = by_value[name]
        if name in numeric and len(values) > MAX_NUMERIC_CATEGORIES:
            continue
        if len(values) < 2:
            continue
        parameters.append({"name": name, "rows": _group_rows(values)})
    return parameters, _group_rows(by_outcome)


def _group_rows(groups: dict[str, list]) -> list[dict]:
    return [
        {"value": value, "count": len(scores), "mean": mean(scores)}
        for value, scores in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


# ---------------------------------------------------------------- misconception map


TOP_PLACES = 3


@dataclass(frozen=True)
class AnalyticsScope:
    """Which answers an analytics page counts: one quiz, one group's students, answers given
    from `since` and before `until` (each optional; all None is the whole offering)."""

    quiz: object = None
    group: object = None
    since: object = None
    until: object = None

    @property
    def narrows(self) -> bool:
        return any(v is not None for v in (self.quiz, self.group, self.since, self.until))

    def attempts(self, attempts, prefix: str = ""):
        """`attempts` (or rows reaching an attempt through `prefix`, like "attempt__") within
        the scope: of its quiz, by its group's students, submitted in its days."""
        if self.quiz is not None:
            attempts = attempts.filter(**{f"{prefix}quiz": self.quiz})
        if self.group is not None:
            attempts = attempts.filter(**{f"{prefix}student__group_memberships__group": self.group})
        if self.since is not None:
            attempts = attempts.filter(**{f"{prefix}submitted_at__gte": self.since})
        if self.until is not None:
            attempts = attempts.filter(**{f"{prefix}submitted_at__lt": self.until})
        return attempts

    def responses(self, responses):
        if self.quiz is not None:
            responses = responses.filter(variant__item__quiz=self.quiz)
        if self.group is not None:
            responses = responses.filter(
                variant__attempt__student__group_memberships__group=self.group
            )
        if self.since is not None:
            responses = responses.filter(created_at__gte=self.since)
        if self.until is not None:
            responses = responses.filter(created_at__lt=self.until)
        return responses


def misconception_map(offering, scope: AnalyticsScope | None = None) -> list[dict]:
    """Each diagnosis the class made, ready for the page (within `scope`: a quiz, a group, a
    date range): `misconception_figures` computed now, then `misconception_rows`."""
    return misconception_rows(offering, misconception_figures(offering, scope))


def misconception_figures(offering, scope: AnalyticsScope | None = None) -> list[dict]:
    """Each diagnosis the class made: distinct students, responses, and where it happened, as
    plain JSON (three aggregations over every incorrect, diagnosed response: the cost the kept
    statistics move off the page, `instructor.offering_statistics`).

    "Where" is read at two levels: the chapters (distinct students and responses in each, from
    the templates' chapter), and the templates, most students first.
    """
    wrong = (scope or AnalyticsScope()).responses(
        Response.objects.filter(
            variant__item__quiz__offering=offering, status=ResponseStatus.INCORRECT
        ).exclude(diagnosis="")
    )
    per_student = {"n": Count("id"), "students": Count("variant__attempt__student", distinct=True)}
    totals = {
        code: (n, students)
        for code, n, students in wrong.values("diagnosis")
        .annotate(**per_student)
        .values_list("diagnosis", "n", "students")
    }
    places: dict[str, list] = defaultdict(list)
    for code, slug, chapter, n, students in (
        wrong.values(
            "diagnosis", "variant__item__template__slug", "variant__item__template__chapter_slug"
        )
        .annotate(**per_student)
        .order_by("-students", "variant__item__template__slug")
        .values_list(
            "diagnosis",
            "variant__item__template__slug",
            "variant__item__template__chapter_slug",
            "n",
            "students",
        )
    ):
        places[code].append({"slug": slug, "chapter": chapter, "count": n, "students": students})
    chapters: dict[str, list] = defaultdict(list)
    for code, chapter, n, students in (
        wrong.values("diagnosis", "variant__item__template__chapter_slug")
        .annotate(**per_student)
        .order_by("-students", "-n", "variant__item__template__chapter_slug")
        .values_list("diagnosis", "variant__item__template__chapter_slug", "n", "students")
    ):
        chapters[code].append({"slug": chapter, "count": n, "students": students})
    rows = [
        {
            "code": code,
            "count": n,
            "students": students,
            "templates": places[code],
            "chapters": chapters[code],
        }
        for code, (n, students) in totals.items()
    ]
    rows.sort(key=lambda row: (-row["students"], -row["count"], row["code"]))
    return rows


def misconception_rows(offering, figures: list[dict], book=None) -> list[dict]:
    """`misconception_figures` with what the page adds from the book: each code's title and
    explanation, where the book explains it, and chapter titles; the templates split into the
    `TOP_PLACES` with most students and the rest, so a common mistake does not list the whole
    bank in one cell. `book` is `book_titles(offering)` when the caller read it already; only
    the chapters a row links to have their source read (for the heading the link names)."""
    book = book_titles(offering) if book is None else book
    infos = {figure["code"]: misconception_info(figure["code"]) for figure in figures}
    headings = _linked_headings(offering, book, infos.values())
    rows = []
    for figure in figures:
        info = infos[figure["code"]]
        templates = [{**t, "students_text": _students(t["students"])} for t in figure["templates"]]
        chapters = [
            {
                **chapter,
                "title": (book[chapter["slug"]][0] if chapter["slug"] in book else "")
                or chapter["slug"]
                or "No chapter",
                "known": chapter["slug"] in book,
                "students_text": _students(chapter["students"]),
                "responses_text": _plural(chapter["count"], "response"),
            }
            for chapter in figure["chapters"]
        ]
        rows.append(
            {
                **figure,
                "info": info,
                # Made here rather than by template filters: the page has a row per mistake
                # and a line per place, and filters were most of its time (issue 34).
                "explanation": Truncator(info.explanation).words(30, truncate=" …"),
                "code_query": quote(figure["code"], safe="/"),
                "place": explained_in(info, book, headings),
                "chapter_titles": ", ".join(c["title"] for c in chapters if c["known"]) or "—",
                "top_templates": templates[:TOP_PLACES],
                "more_templates": templates[TOP_PLACES:],
                "chapters": chapters,
            }
        )
    return rows


def book_titles(offering) -> dict[str, tuple[str, str]]:
    """{slug: (title, content hash)} of the offering's book: one query, without the sources."""
    return {
        slug: (title, content_hash)
        for slug, title, content_hash in Chapter.objects.filter(
            part__course=offering.course_id
        ).values_list("slug", "title", "content_hash")
    }


# A chapter's headings by its content hash (the hash changes with the text, so an edited
# chapter is looked up under a new key): the map names a section per row without reading
# every chapter's source on every view.
_headings = caching.local_cache(
    "chapter headings (misconception map)",
    max_bytes=2 * 1024 * 1024,
    why="the map's 'explained in' links name a section without reading the book's sources",
)


def _linked_headings(offering, book: dict, infos) -> dict[str, dict[str, str]]:
    """{slug: section_headings} of the chapters these misconceptions link to; a chapter's
    source is read only when its headings are not kept under its content hash."""
    linked = set()
    for info in infos:
        path = info.url.partition("#")[0]
        slug = path.rstrip("/").rsplit("/", 1)[-1] if path else ""
        if slug in book:
            linked.add(slug)
    found, missing = {}, []
    for slug in linked:
        content_hash = book[slug][1]
        held = _headings.get((slug, content_hash)) if content_hash else None
        if held is None:
            missing.append(slug)
        else:
            found[slug] = held
    if missing:
        for slug, source, content_hash in Chapter.objects.filter(
            part__course=offering.course_id, slug__in=missing
        ).values_list("slug", "source", "content_hash"):
            found[slug] = section_headings(source)
            if content_hash:
                _headings.set((slug, content_hash), found[slug])
    return found


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _students(n: int) -> str:
    return _plural(n, "student")
