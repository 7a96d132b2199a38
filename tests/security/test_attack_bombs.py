"""Second attack review: author-controlled work that could hold a web worker.

The studio's version diff ran difflib's SequenceMatcher with autojunk off over the whole texts;
its cost grows with the cube of repeated lines, so a 2 kB draft of alternating comment lines
held a worker for 50 seconds. These tests count the lines handed to a matcher rather than
timing the diff (a busy machine failed a time limit): a matcher asked to match more than the
diff's bound fails at once, so a regression fails quickly instead of hanging the suite.
"""

from __future__ import annotations

import difflib

import pytest

from quizzes.engine import parse_template
from quizzes.presenters.studio import MAX_MATCHED_LINES, diff_rows
from tests.security.work_counts import count_work


@pytest.fixture
def matched(monkeypatch) -> list[int]:
    """Lines of old times lines of new handed to each SequenceMatcher built from here on."""
    sizes: list[int] = []

    class CountingMatcher(difflib.SequenceMatcher):
        def __init__(self, isjunk=None, a="", b="", autojunk=True):
            sizes.append(len(a) * len(b))
            if sizes[-1] > MAX_MATCHED_LINES:
                raise AssertionError(f"a matcher over {len(a)} x {len(b)} lines")
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", CountingMatcher)
    return sizes


def _counted_diff(matched: list[int], old: str, new: str):
    rows = diff_rows(old, new)
    return sum(matched), [(r.kind, r.old, r.new, r.text) for r in rows]


def _alternating(n: int) -> str:
    return "".join("#\n" if i % 2 else "# x\n" for i in range(n))


@pytest.mark.parametrize(
    "old,new",
    [
        ("#\n" * 1000, _alternating(1000)),
        (_alternating(50_000), "#\n" * 50_000),  # the largest draft the studio saves
        ("#\n" * 600 + "a: 1\n" + "#\n" * 600, _alternating(1200) + "b: 2\n"),
    ],
    ids=["alternating-1000", "draft-limit", "mixed"],
)
def test_the_version_diff_is_bounded(old, new, matched):
    pairs, rows = _counted_diff(matched, old, new)
    assert pairs <= MAX_MATCHED_LINES
    # Whatever the shortcut, the rows still rebuild both texts.
    olds = [text for kind, o, n, text in rows if kind in ("same", "del")]
    news = [text for kind, o, n, text in rows if kind in ("same", "add")]
    assert "#" in olds and news


def test_an_ordinary_edit_still_diffs_line_by_line(matched):
    old = "".join(f"line {i}: value\n" for i in range(200))
    new = old.replace("line 100: value", "line 100: changed")
    pairs, rows = _counted_diff(matched, old, new)
    changed = [(kind, text) for kind, o, n, text in rows if kind in ("add", "del")]
    assert changed == [("del", "line 100: value"), ("add", "line 100: changed")]
    assert rows[0][0] == "hunk"


def test_a_huge_rewrite_is_shown_whole_and_says_so(matched):
    old = _alternating(2000)
    new = "@\n" * 2000
    pairs, rows = _counted_diff(matched, old, new)
    assert sum(1 for r in rows if r[0] == "del") == 2000
    assert sum(1 for r in rows if r[0] == "add") == 2000
    assert any(r[0] == "hunk" and "too many" in r[3] for r in rows)


@pytest.mark.django_db
def test_the_diff_page_of_a_hostile_draft_answers_quickly(client, course, author, matched):
    from django.urls import reverse

    from quizzes.services import authoring
    from tests.quizzes.test_studio_views import make_template

    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    # A valid template followed by comment lines: published as version 2, then a draft that
    # alternates the comment lines.
    base = template.draft_source
    text = base + "#\n" * 1500
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    authoring.publish_draft(template=template, revision=2, user=author)
    template.refresh_from_db()
    hostile = base + _alternating(1500)
    revision = template.draft_revision
    authoring.save_draft(template=template, text=hostile, revision=revision, user=author)
    template.refresh_from_db()
    assert template.versions.count() == 2 and template.draft_source == hostile
    client.force_login(author)
    response = client.get(
        reverse("studio:template_diff", args=[template.slug]), {"a": "2", "b": "draft"}
    )
    assert sum(matched) <= MAX_MATCHED_LINES  # it was minutes before the bound
    assert response.status_code == 200
    assert "too many lines" in response.content.decode()


# -- expressions an author writes into a parameter: each refused quickly with its reason --------

PARAMETER_BOMBS = {
    "power tower": ('"10 ** 10 ** 10"', "too large"),
    "nested powers": ('"2 ** 2 ** 2 ** 2 ** 2 ** 2"', "too large"),
    "unknown function": ('"factorial(100000)"', "unknown function"),
    "long literal": ('"' + "9" * 4000 + '"', "longer than"),
    "long product": ('"' + "*".join(["(1+1)"] * 3000) + '"', "longer than"),
    "deep nesting": ('"' + "(" * 3000 + "1" + ")" * 3000 + '"', "longer than"),
    "string repeat": ("\"'a' * 10 ** 9\"", "not combined"),
    "list repeat": ('"[1] * 10 ** 9"', "not lists"),
}


@pytest.mark.parametrize("name", list(PARAMETER_BOMBS))
def test_parameter_expressions_that_would_blow_up_are_refused(name, monkeypatch):
    from quizzes.services import authoring

    expression, reason = PARAMETER_BOMBS[name]
    base = authoring.starter_source("choice")
    original = 'ridge: {value: "ridge_point(acc, dt)"}'
    assert original in base
    source = base.replace(original, "ridge: {value: " + expression + "}")
    one_draw = len(parse_template(base, source="starter.yaml").parameters)
    work = count_work(monkeypatch)
    preview = authoring.build_preview(source, 1)
    # Counted rather than timed: refused within the first draw of the parameters, never
    # retried (a bomb that passed would also never return).
    assert work.draws <= one_draw, work
    assert reason in preview.error


# -- the chapter files' front matter is YAML too --------------------------------------------------

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_chapter_front_matter_refuses_anchors_with_the_line(monkeypatch):
    from courseware.rendering import ContentError, split_front_matter

    text = "---\nslug: c\ntitle: C\n" + LAUGHS + "---\n# Body\n"
    work = count_work(monkeypatch)
    with pytest.raises(ContentError) as refused:
        split_front_matter(text, source="book/c.md")
    # Refused from PyYAML's event stream: no node composed, no alias followed.
    assert (work.yaml_nodes, work.yaml_aliases) == (0, 0), work
    assert "anchor" in refused.value.message or "alias" in refused.value.message
    assert refused.value.line == 4  # the first anchor, counted in the file's own lines


def test_chapter_front_matter_without_anchors_still_loads():
    from courseware.rendering import split_front_matter

    parsed = split_front_matter("---\nslug: c\ntitle: 'A & B'\ntags: [x]\n---\nBody\n")
    assert parsed.meta == {"slug": "c", "title": "A & B", "tags": ["x"]}
