"""The one invalidation rule (`courseware/stamps.py`, registered in `quizzes/stamps.py`): every
write to a watched row raises its owner's stamp, by whatever ORM path it is made, and no code in
the apps writes a watched table with SQL of its own except the one reviewed upsert.

Each behaviour test writes a row through one ORM path (save, create, `update`, `bulk_create`,
`bulk_update`, delete) and fails if the stamp did not move; the scan fails when new code writes
with SQL that no signal or queryset sees.
"""

from __future__ import annotations

import ast
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from courseware import caching
from courseware.stamps import StampedQuerySet
from quizzes.models import (
    Attempt,
    QuizActivity,
    QuizItem,
    Response,
    ResponseSource,
    ResponseStatus,
    SavedAnswer,
    ScoreOverride,
    TemplateVersion,
    Variant,
)
from quizzes.services import attempts as service
from tests.factories import PASSWORD, check_answer, make_quiz

ROOT = Path(__file__).resolve().parents[2]
APPS = ("quizzes", "courseware", "lti", "config", "health")
# SQL of its own may run only here: each function is reviewed to raise what its write needs
# (the exam save's upsert raises the page stamp in the same statement or transaction), or
# writes nothing (a SELECT).
SQL_ALLOWED = {
    ("quizzes/services/attempts.py", "_save_if_open_in_one_statement"),
    ("quizzes/services/attempts.py", "_upsert_newer"),
    ("courseware/prepared.py", "_rows"),
    ("health/views.py", "_database"),
    # COPY of new rows (demo data), raising the stamps `bulk_create` raises.
    ("courseware/stamps.py", "copy_create"),
}
# The ORM's own ways around signals and StampedQuerySet.
SQL_CALLS = {"execute", "executemany", "raw", "extra", "_update", "_insert", "_raw_delete"}
WATCHED = {
    "attempt pages": {Response, SavedAnswer, Variant, ScoreOverride, QuizItem, TemplateVersion},
    "quiz statistics": {Response, Variant, Attempt, ScoreOverride},
}


def _app_files():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _a_copy(call: ast.Call) -> bool:
    """psycopg's `cursor.copy("COPY ...")` (not a dict's or a list's `copy()`)."""
    if call.func.attr != "copy" or not call.args:
        return False
    text = call.args[0]
    if isinstance(text, ast.JoinedStr):
        text = next((v for v in text.values if isinstance(v, ast.Constant)), None)
    return isinstance(text, ast.Constant) and str(text.value).lstrip().upper().startswith("COPY")


def _sql_sites(path: Path) -> list[tuple[str, str, int]]:
    """(file, enclosing function, line) of every call that writes around the ORM's stamps."""
    tree = ast.parse(path.read_text())
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inside = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = child.name
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                if child.func.attr in SQL_CALLS or _a_copy(child):
                    found.append((str(path.relative_to(ROOT)), inside, child.lineno))
            if isinstance(child, ast.Attribute) and child.attr == "_base_manager":
                found.append((str(path.relative_to(ROOT)), inside, child.lineno))
            if isinstance(child, ast.Name) and child.id == "RawSQL":
                found.append((str(path.relative_to(ROOT)), inside, child.lineno))
            visit(child, inside)

    visit(tree, "<module>")
    return found


def test_no_code_in_the_apps_writes_around_the_stamps():
    sites = [site for path in _app_files() for site in _sql_sites(path)]
    stray = [site for site in sites if site[:2] not in SQL_ALLOWED]
    assert not stray, f"SQL of its own outside the reviewed places: {stray}"
    # The scan finds what it looks for: each allowed place is still there.
    assert {site[:2] for site in sites} == SQL_ALLOWED


def test_the_scan_catches_a_planted_raw_write(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def sneaky(cursor):\n    cursor.execute('UPDATE quizzes_response SET score = 1')\n"
    )
    sites = [(name, line) for _, name, line in _sql_sites_at(planted)]
    assert sites == [("sneaky", 2)]


def test_the_scan_catches_a_planted_copy_and_not_a_dicts_copy(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def sneaky(cursor, table, row):\n"
        "    with cursor.copy(f'COPY {table} (score) FROM STDIN') as copy:\n"
        "        copy.write_row(row.copy())\n"
    )
    sites = [(name, line) for _, name, line in _sql_sites_at(planted)]
    assert sites == [("sneaky", 2)]


def _sql_sites_at(path: Path):
    # _sql_sites names files relative to the project; a planted file lives elsewhere.
    global ROOT
    saved, ROOT = ROOT, path.parent
    try:
        return _sql_sites(path)
    finally:
        ROOT = saved


def test_every_watched_model_writes_through_a_stamped_queryset():
    registered = {held.name: set(held.watched) for held in caching.stamps()}
    assert registered == WATCHED
    for model in caching.watched_models():
        assert issubclass(model._default_manager._queryset_class, StampedQuerySet), model
        # A related manager (variant.responses) is built on the default manager's class.
        assert issubclass(type(model._default_manager), type(model.objects))


# --------------------------------------------------------------- behaviour, one write at a time


@pytest.fixture
def world(course, student):
    quiz = make_quiz(course, mode="exam")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.order_by("pk").first()
    return attempt, variant


def _page(attempt) -> int:
    return Attempt.objects.values_list("page_stamp", flat=True).get(pk=attempt.pk)


def _statistics(attempt) -> int:
    return (
        QuizActivity.objects.filter(quiz_id=attempt.quiz_id)
        .values_list("changes", flat=True)
        .first()
        or 0
    )


def _response(variant, **fields) -> Response:
    row = {
        "variant": variant,
        "part_id": "t",
        "raw": "1 s",
        "status": ResponseStatus.INCORRECT,
        "score": 0.0,
        "source": ResponseSource.CHECK,
        "idempotency_key": uuid.uuid4().hex,
    }
    return Response(**(row | fields))


def _rises(read, attempt, write) -> None:
    before = read(attempt)
    write()
    assert read(attempt) > before


WRITES = {
    "response created": lambda a, v: _response(v).save(),
    "response bulk_create": lambda a, v: Response.objects.bulk_create([_response(v)]),
    "response copy_create": lambda a, v: Response.objects.copy_create([_response(v)]),
    "response update": lambda a, v: (
        _response(v).save(),
        Response.objects.filter(variant=v).update(score=0.5),
    ),
    "response bulk_update": lambda a, v: (
        _response(v).save(),
        Response.objects.bulk_update(
            [r for r in Response.objects.filter(variant=v) if not setattr(r, "score", 0.25)],
            ["score"],
        ),
    ),
    "response deleted": lambda a, v: (_response(v).save(), Response.objects.all().delete()),
    "saved answer created": lambda a, v: SavedAnswer.objects.create(variant=v, part_id="t"),
    "saved answer update": lambda a, v: (
        SavedAnswer.objects.create(variant=v, part_id="t"),
        SavedAnswer.objects.filter(variant=v).update(raw="2 s"),
    ),
    "variant score saved": lambda a, v: (
        setattr(v, "score", 0.5),
        v.save(update_fields=["score"]),
    ),
    "variant update": lambda a, v: Variant.objects.filter(pk=v.pk).update(score=0.75),
    "variant through its attempt": lambda a, v: a.variants.update(score=0.5),
    "override created": lambda a, v: ScoreOverride.objects.create(
        attempt=a, score=Decimal(1), reason="r"
    ),
    "override bulk_create": lambda a, v: ScoreOverride.objects.bulk_create(
        [ScoreOverride(attempt=a, score=Decimal(1), reason="r")]
    ),
}
PAGE_ONLY = {
    "saved answer created",
    "saved answer update",
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_write_raises_the_attempt_page_stamp(world, write):
    attempt, variant = world
    _rises(_page, attempt, lambda: WRITES[write](attempt, variant))


@pytest.mark.parametrize("write", sorted(set(WRITES) - PAGE_ONLY))
def test_a_grade_write_raises_the_quiz_statistics(world, write):
    attempt, variant = world
    _rises(_statistics, attempt, lambda: WRITES[write](attempt, variant))


def test_an_unreadable_answer_and_an_exam_save_change_no_statistic(world):
    attempt, variant = world
    before = _statistics(attempt)
    _response(variant, status=ResponseStatus.INVALID, score=0.0, try_number=None).save()
    # An exam's grade as the worker stores it counts when the exam's score is saved.
    _response(variant, source=ResponseSource.EXAM, idempotency_key="").save()
    SavedAnswer.objects.create(variant=variant, part_id="t", raw="12")
    Attempt.objects.filter(pk=attempt.pk).update(last_activity_at=timezone.now())
    assert _statistics(attempt) == before


def test_an_attempts_grade_and_its_deletion_raise_the_statistics(world):
    attempt, _ = world
    _rises(_statistics, attempt, lambda: Attempt.objects.filter(pk=attempt.pk).update(score=1))
    _rises(_statistics, attempt, lambda: attempt.save())
    quiz_counter = QuizActivity.objects.get(quiz_id=attempt.quiz_id)
    attempt.delete()
    quiz_counter.refresh_from_db()
    assert quiz_counter.changes > 0 and _statistics(attempt) == quiz_counter.changes


def test_an_authors_item_and_version_edits_raise_every_attempt_at_the_quiz(world):
    attempt, variant = world
    item = QuizItem.objects.get(pk=variant.item_id)
    _rises(_page, attempt, lambda: QuizItem.objects.filter(pk=item.pk).update(points=3))
    _rises(_page, attempt, lambda: (setattr(item, "points", 4), item.save()))
    version = TemplateVersion.objects.get(pk=variant.version_id)
    _rises(_page, attempt, lambda: TemplateVersion.objects.filter(pk=version.pk).update(number=9))
    _rises(_page, attempt, lambda: version.save())


def test_a_new_version_raises_nothing(world):
    attempt, variant = world
    version = TemplateVersion.objects.get(pk=variant.version_id)
    before = _page(attempt)
    TemplateVersion.objects.create(
        template=version.template, number=version.number + 1, source=version.source
    )
    assert _page(attempt) == before


def test_a_rolled_back_write_leaves_no_raise_behind(world):
    from django.db import transaction

    attempt, variant = world
    before = _page(attempt)
    with pytest.raises(RuntimeError), transaction.atomic():
        _response(variant).save()
        raise RuntimeError
    assert _page(attempt) == before


def test_a_batch_raises_each_owner_once_when_it_ends(world):
    attempt, variant = world
    before = _page(attempt)
    with CaptureQueriesContext(connection) as seen, caching.batch():
        _response(variant).save()
        variant.score = 0.5
        variant.save(update_fields=["score"])
        Variant.objects.filter(pk=variant.pk).update(score=0.25)
        assert _page(attempt) == before  # not yet: when the batch ends
    assert _page(attempt) == before + 1
    raises = [q["sql"] for q in seen.captured_queries if "page_stamp" in q["sql"]]
    assert len(raises) == 2  # the read inside the block, and the one raise


# ---------------------------------------------------------------- the memoised page follows it


def test_a_row_written_through_the_orm_changes_the_memoised_page(client, world, student):
    attempt, variant = world
    client.login(username=student.username, password=PASSWORD)
    url = reverse("quizzes:attempt_detail", args=[attempt.quiz.offering.slug, attempt.pk])
    client.get(url)
    SavedAnswer.objects.create(variant=variant, part_id="t", raw="first-draft-0417")
    assert "first-draft-0417" in client.get(url).content.decode()
    # An update no signal sees: the queryset raises the stamp.
    SavedAnswer.objects.filter(variant=variant).update(raw="second-draft-0418")
    page = client.get(url).content.decode()
    assert "second-draft-0418" in page and "first-draft-0417" not in page


def test_a_homework_check_raises_each_stamp_once(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    page, counted = _page(attempt), _statistics(attempt)
    with CaptureQueriesContext(connection) as seen:
        check_answer(variant, student, "1 s")
    assert _page(attempt) == page + 1 and _statistics(attempt) == counted + 1
    updates = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("UPDATE")]
    assert sum("page_stamp" in sql for sql in updates) == 1
