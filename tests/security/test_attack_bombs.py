"""Second attack review: author-controlled work that could hold a web worker.

The studio's version diff ran difflib's SequenceMatcher with autojunk off over the whole texts;
its cost grows with the cube of repeated lines, so a 2 kB draft of alternating comment lines
held a worker for 50 seconds. These tests run in a child process with a deadline, so a
regression fails quickly instead of hanging the suite.
"""

from __future__ import annotations

import multiprocessing
import time

import pytest

from quizzes.presenters.studio import diff_rows

DEADLINE = 3.0  # seconds, for work that must take well under one


def _run(old, new, queue):
    started = time.perf_counter()
    rows = diff_rows(old, new)
    queue.put((time.perf_counter() - started, [(r.kind, r.old, r.new, r.text) for r in rows]))


def _timed_diff(old: str, new: str):
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_run, args=(old, new, queue))
    child.start()
    try:
        # Read before joining: a child blocks on exit until its queue is drained.
        return queue.get(timeout=DEADLINE)
    except Exception:  # noqa: BLE001 - queue.Empty: it took too long
        pytest.fail(f"the diff took more than {DEADLINE} s")
    finally:
        child.kill()
        child.join()


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
def test_the_version_diff_is_bounded(old, new):
    seconds, rows = _timed_diff(old, new)
    assert seconds < 1.0
    # Whatever the shortcut, the rows still rebuild both texts.
    olds = [text for kind, o, n, text in rows if kind in ("same", "del")]
    news = [text for kind, o, n, text in rows if kind in ("same", "add")]
    assert "#" in olds and news


def test_an_ordinary_edit_still_diffs_line_by_line():
    old = "".join(f"line {i}: value\n" for i in range(200))
    new = old.replace("line 100: value", "line 100: changed")
    seconds, rows = _timed_diff(old, new)
    changed = [(kind, text) for kind, o, n, text in rows if kind in ("add", "del")]
    assert changed == [("del", "line 100: value"), ("add", "line 100: changed")]
    assert rows[0][0] == "hunk"


def test_a_huge_rewrite_is_shown_whole_and_says_so():
    old = _alternating(2000)
    new = "@\n" * 2000
    seconds, rows = _timed_diff(old, new)
    assert sum(1 for r in rows if r[0] == "del") == 2000
    assert sum(1 for r in rows if r[0] == "add") == 2000
    assert any(r[0] == "hunk" and "too many" in r[3] for r in rows)


@pytest.mark.django_db
def test_the_diff_page_of_a_hostile_draft_answers_quickly(client, course, author):
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
    started = time.perf_counter()
    response = client.get(
        reverse("studio:template_diff", args=[template.slug]), {"a": "2", "b": "draft"}
    )
    assert time.perf_counter() - started < 5  # it was minutes before the bound
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
def test_parameter_expressions_that_would_blow_up_are_refused(name):
    from quizzes.services import authoring

    expression, reason = PARAMETER_BOMBS[name]
    base = authoring.starter_source("choice")
    original = 'ridge: {value: "ridge_point(acc, dt)"}'
    assert original in base
    source = base.replace(original, "ridge: {value: " + expression + "}")
    started = time.perf_counter()
    preview = authoring.build_preview(source, 1)
    assert time.perf_counter() - started < 2
    assert reason in preview.error


# -- the chapter files' front matter is YAML too --------------------------------------------------

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_chapter_front_matter_refuses_anchors_with_the_line():
    from courseware.rendering import ContentError, split_front_matter

    text = "---\nslug: c\ntitle: C\n" + LAUGHS + "---\n# Body\n"
    started = time.perf_counter()
    with pytest.raises(ContentError) as refused:
        split_front_matter(text, source="book/c.md")
    assert time.perf_counter() - started < 1
    assert "anchor" in refused.value.message or "alias" in refused.value.message
    assert refused.value.line == 4  # the first anchor, counted in the file's own lines


def test_chapter_front_matter_without_anchors_still_loads():
    from courseware.rendering import split_front_matter

    parsed = split_front_matter("---\nslug: c\ntitle: 'A & B'\ntags: [x]\n---\nBody\n")
    assert parsed.meta == {"slug": "c", "title": "A & B", "tags": ["x"]}
