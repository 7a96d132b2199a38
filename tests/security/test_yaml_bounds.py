"""Issue 13, item 6: no template or quiz file can make the site expand, loop or wait without
limit. Aliases are refused before anything is built, every count an author sets is bounded, and
the studio's preview and validation have a wall-clock budget that says when it ran out. The
tests count the work done (YAML nodes, aliases followed, parameter draws), never the time.

Each hostile text goes through every way in (engine, preview, save, zip upload, sync) and must
come back fast, with a clear message naming the line, and with nothing stored.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from quizzes import engine
from quizzes.models import QuestionTemplate, Quiz, TemplateVersion
from quizzes.services import authoring
from quizzes.services.bank import read_quiz_text
from tests.security.work_counts import Work, count_work

# Lists of nine, each made of nine of the one before: about 300 bytes naming 9**8 (43 million)
# strings, the size of the review's 318-byte template.
LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{name}: &{name} [{','.join(['*' + prev] * 9)}]\n"
    for prev, name in zip("abcdefg", "bcdefgh", strict=True)
)
STARTER = authoring.starter_source("numeric")


def _valid_bomb(slug: str = "bomb-q") -> str:
    text = authoring.with_fields(STARTER, slug=slug)
    return text.replace("difficulty: 2\n", "difficulty: 2\n" + LAUGHS)


MAX_YAML_NODES = 1_000  # the largest hostile text here composes under 300
BOMB_LINE = 8  # the first anchor, right after `difficulty:` in the numeric starter


def _max_tries(slug: str = "many-tries-q", tries: int = 100_000) -> str:
    text = authoring.with_fields(STARTER, slug=slug)
    return text.replace("min_variants: 10\n", f"min_variants: 10\nmax_tries: {tries}\n")


def _bounded(work: Work, *, draws: int = 0) -> None:
    # Counted, not timed (a busy machine made a time limit fail): without the bounds the bomb's
    # aliases expand to 43 million strings and each variant spends its max_tries draws, 15 s or
    # more; refused up front, a hostile text costs a few hundred YAML nodes and no draw.
    assert work.yaml_aliases == 0, work  # nothing was built by following an alias
    assert work.yaml_nodes <= MAX_YAML_NODES, work
    assert work.draws <= draws, work


def test_the_bomb_is_small_and_really_a_bomb():
    assert 250 < len(LAUGHS.encode()) < 330
    bomb = _valid_bomb()
    assert bomb.splitlines()[BOMB_LINE - 1].startswith("a: &a")


def test_the_engine_refuses_aliases_with_the_line_before_building_anything(monkeypatch):
    work = count_work(monkeypatch)
    with pytest.raises(engine.TemplateError) as caught:
        engine.parse_template(_valid_bomb(), source="bomb.yaml")
    _bounded(work)
    (issue,) = caught.value.errors
    assert issue.line == BOMB_LINE and issue.field == "yaml"
    assert "anchors and aliases" in issue.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &x 1\nb: *x\n", "anchors and aliases"),
        ("base: &b {x: 1}\nother:\n  <<: *b\n", "anchors and aliases"),
        ("x: " + "[" * 30 + "]" * 30 + "\n", "nested more than 20 levels"),
        ("x: [" + ", ".join(["1"] * 1001) + "]\n", "more than 1,000 entries"),
        ("x: " + "y" * 20_001 + "\n", "longer than 20,000 characters"),
    ],
)
def test_every_yaml_reader_refuses_what_cannot_be_bounded(text, message):
    with pytest.raises(engine.TemplateError, match=message):
        engine.parse_template(text, source="t.yaml")
    with pytest.raises(engine.TemplateError) as caught:
        read_quiz_text(text, source="q.yaml")
    assert any(message in p and "q.yaml, line" in p for p in str(caught.value).splitlines())


@pytest.mark.parametrize(
    ("insert", "message"),
    [
        ("max_tries: 100000\n", "max_tries: must be at most 2,000"),
        ("max_tries: 0\n", "max_tries: must be at least 1"),
        ("max_tries: 2001\n", "max_tries: must be at most 2,000"),
    ],
)
def test_max_tries_is_bounded(insert, message):
    text = STARTER.replace("min_variants: 10\n", f"min_variants: 10\n{insert}")
    with pytest.raises(engine.TemplateError, match=message):
        engine.parse_template(text, source="t.yaml")


def test_max_tries_at_its_bound_is_accepted():
    text = STARTER.replace("min_variants: 10\n", "min_variants: 10\nmax_tries: 2000\n")
    assert engine.parse_template(text, source="t.yaml").max_tries == 2000


def test_author_counts_are_bounded_with_their_line():
    many = ", ".join(f"v{n}" for n in range(501))
    text = STARTER.replace("  dt: {choice: [fp16, int8]}", f"  dt: {{choice: [{many}]}}")
    text = text.replace("min_variants: 10", "min_variants: 5001")
    hints = "".join(f"  - after: {n}\n    text: hint {n}\n" for n in range(21))
    text = text.replace("hints:\n", "hints:\n" + hints)
    with pytest.raises(engine.TemplateError) as caught:
        engine.parse_template(text, source="t.yaml")
    found = {(i.field, i.message) for i in caught.value.errors}
    assert ("dt", "has 501 entries; at most 500") in found
    assert ("hints", "has 22 entries; at most 20") in found
    assert all(i.line for i in caught.value.errors)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tries_per_variant", 100_000),
        ("max_attempts", 40_000),
        ("position", 70_000),
        ("time_limit_minutes", 10**9),
    ],
)
def test_quiz_file_counts_are_bounded(field, value):
    text = f"slug: q\ntitle: Q\n{field}: {value}\nitems:\n  - template: x\n"
    with pytest.raises(engine.TemplateError) as caught:
        read_quiz_text(text, source="q.yaml")
    assert f"line 3, {field}: must be a whole number from 0 to" in str(caught.value)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("slug: new-numeric-question", "slug: " + "a" * 101, "slug: at most 100 characters"),
        ("title: Weights streamed", "title: " + "W" * 201, "title: at most 200 characters"),
        ("  - id: t\n", "  - id: t" + "x" * 50 + "\n", "at most 50 in all"),
    ],
)
def test_names_that_fill_a_column_are_refused_at_parse_time(old, new, message):
    """Found in the audit: a 51-character part id parsed, then failed (a 500 on PostgreSQL)
    when the first answer to it was stored; slugs and titles likewise at sync."""
    assert old in STARTER
    with pytest.raises(engine.TemplateError, match=message):
        engine.parse_template(STARTER.replace(old, new, 1), source="t.yaml")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("  - template: x\n    points: 1e400\n", "points: must be a positive number, at most 1000"),
        ("  - template: x\n    points: 5000\n", "points: must be a positive number, at most 1000"),
        (
            f"  - pool: {'p' * 51}\n    draw: 1\n    templates: [x, y]\n",
            "a pool name is at most 50 characters",
        ),
    ],
)
def test_quiz_file_values_that_would_overflow_their_column(line, message):
    text = f"slug: q\ntitle: {'T' * 201}\nitems:\n{line}"
    with pytest.raises(engine.TemplateError) as caught:
        read_quiz_text(text, source="q.yaml")
    assert message in str(caught.value)
    assert "q.yaml, line 2, title: at most 200 characters" in str(caught.value)


# -- through the studio, the upload and sync ---------------------------------------------------


@pytest.fixture
def author_client(client, author):
    client.force_login(author)
    return client


@pytest.fixture
def template(course, author):
    return authoring.create_template(course=course, user=author, kind="numeric", slug="bomb-q")


HOSTILE = {"bomb": (_valid_bomb, "anchors and aliases"), "tries": (_max_tries, "max_tries")}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", HOSTILE)
def test_studio_preview_answers_fast_with_the_message(author_client, template, kind, monkeypatch):
    make, message = HOSTILE[kind]
    url = reverse("studio:template_preview", args=[template.slug])
    data = {"source": make(template.slug), "seed": "0", "draft_revision": template.draft_revision}
    work = count_work(monkeypatch)
    response = author_client.post(url, data, HTTP_HX_REQUEST="true")
    _bounded(work)
    assert response.status_code == 200
    assert message in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", HOSTILE)
def test_studio_save_of_hostile_text(author_client, template, kind, monkeypatch):
    make, message = HOSTILE[kind]
    before = (template.draft_source, template.draft_revision)
    url = reverse("studio:template_edit", args=[template.slug])
    data = {"source": make(template.slug), "draft_revision": template.draft_revision}
    work = count_work(monkeypatch)
    response = author_client.post(url, data, follow=True)
    _bounded(work)
    assert message in response.content.decode()
    template.refresh_from_db()
    assert not template.versions.exists()
    if kind == "bomb":
        # Never stored: no later load has to open it.
        assert response.status_code == 400
        assert (template.draft_source, template.draft_revision) == before
    else:
        # Ordinary errors are the author's work in progress: kept, never published.
        assert template.draft_source == make(template.slug)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("as_zip", [True, False])
def test_studio_upload_refuses_and_stores_nothing(author_client, course, kind, as_zip, monkeypatch):
    make, message = HOSTILE[kind]
    text = make("uploaded-q").encode()
    if as_zip:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("questions/inference/uploaded-q.yaml", text)
        upload = SimpleUploadedFile("bank.zip", buffer.getvalue())
    else:
        upload = SimpleUploadedFile("uploaded-q.yaml", text)
    work = count_work(monkeypatch)
    response = author_client.post(reverse("studio:bank_import"), {"file": upload})
    _bounded(work)
    assert message in response.content.decode()
    assert not QuestionTemplate.objects.filter(slug="uploaded-q").exists()
    assert not TemplateVersion.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", HOSTILE)
def test_sync_refuses_and_stores_nothing(tmp_path, course, kind, monkeypatch):
    make, message = HOSTILE[kind]
    (tmp_path / "inference").mkdir()
    (tmp_path / "inference" / "synced-q.yaml").write_text(make("synced-q"))
    (tmp_path / "quizzes").mkdir()
    (tmp_path / "quizzes" / "q.yaml").write_text(
        "slug: synced\ntitle: S\nitems:\n  - template: synced-q\n"
    )
    work = count_work(monkeypatch)
    with pytest.raises(CommandError, match=message):
        call_command("sync_questions", dir=str(tmp_path), stdout=io.StringIO())
    _bounded(work)
    assert not QuestionTemplate.objects.exists() and not Quiz.objects.exists()


@pytest.mark.django_db
def test_sync_refuses_a_quiz_file_bomb(tmp_path, course, monkeypatch):
    (tmp_path / "quizzes").mkdir()
    (tmp_path / "quizzes" / "q.yaml").write_text(LAUGHS)
    work = count_work(monkeypatch)
    with pytest.raises(CommandError, match="q.yaml, line 1, yaml: anchors and aliases"):
        call_command("sync_questions", dir=str(tmp_path), stdout=io.StringIO())
    _bounded(work)
    assert not Quiz.objects.exists()


# -- budgets -----------------------------------------------------------------------------------

# Constraints that no draw meets: every variant spends all of its max_tries draws.
HOPELESS = STARTER.replace("constraints:\n", 'constraints:\n  - "w < 0"\n').replace(
    "min_variants: 10\n", "min_variants: 10\nmax_tries: 2000\n"
)


def _draws_per_variant(text: str) -> int:
    """Parameter draws a variant costs when every one of its max_tries is spent."""
    template = engine.parse_template(text, source="t.yaml")
    return template.max_tries * len(template.parameters)


def test_a_preview_over_its_budget_says_so(settings, monkeypatch):
    settings.QUIZ_PREVIEW_BUDGET_SECONDS = 0.05
    engine.parse_template(STARTER, source="warm.yaml")  # a web process has its imports done
    every_try = _draws_per_variant(HOPELESS)
    work = count_work(monkeypatch)
    preview = authoring.build_preview(HOPELESS, 0)
    assert "within the preview's budget of 0.05 s" in preview.error
    # The budget, not the end of max_tries, stopped the draws (counted rather than timed; on a
    # loaded machine the budget may run out before the first draw, which is still the budget).
    assert work.yaml_aliases == 0 and work.draws < every_try, (work, every_try)


def test_a_validation_over_its_budget_stops_and_says_how_far_it_got(settings, monkeypatch):
    settings.QUIZ_VALIDATION_BUDGET_SECONDS = 0.3
    settings.QUIZ_PREVIEW_BUDGET_SECONDS = 10  # the smoke draws before validating must finish
    # About one draw in 330 meets the constraint: each variant is slow but possible.
    slow = HOPELESS.replace('  - "w < 0"\n', '  - "x < 300"\n').replace(
        "parameters:\n", "parameters:\n  x: {range: [0, 99999]}\n"
    )
    every_try = _draws_per_variant(slow)
    work = count_work(monkeypatch)
    summary = authoring.validation_summary(slow, 5_000)
    assert summary["ok"] is False
    budget = [f for f in summary["failures"] if f["check"] == "budget"]
    assert budget, summary["failures"]
    assert "time budget of 0.3 s ran out" in budget[0]["message"]
    assert "stopped after" in budget[0]["message"] and "of 5,000 seeds" in budget[0]["message"]
    # Counted rather than timed: the draws made are those of the seeds it says it checked
    # (each at most every try), not of the 5,000 it was asked for.
    checked = int(re.search(r"stopped after ([\d,]+) of", budget[0]["message"])[1].replace(",", ""))
    assert work.draws <= (checked + 1) * every_try, (checked, work, every_try)


def test_the_engine_budget_stops_a_validation_between_seeds():
    template = engine.parse_template(STARTER, source="t.yaml")
    report = engine.validate_template(template, 5_000, budget_s=0.0)
    assert report.stopped_after == 0 and not report.ok
    assert report.failures[0].check == "budget"
    assert "stopped after 0 of 5,000 seeds" in report.failures[0].message
