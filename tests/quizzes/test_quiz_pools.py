"""Pools in the browser and a browser-made quiz written out as a file (issue 27, item 2): an
instructor makes a pool "draw N of M" with points per question, changes and removes it, with
the file format's bounds and a confirmation once attempts exist; the quiz downloaded as a file
reads back through `sync_questions` as the same quiz, with no change and no conflict."""

from __future__ import annotations

from decimal import Decimal
from html import unescape

import pytest
import yaml
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Quiz, QuizItem
from quizzes.services import attempts as attempts_service
from quizzes.services.bank import read_bank, read_quiz_text, sync_bank
from tests.factories import OFFERING, PASSWORD, QuestionTemplateFactory, make_quiz
from tests.quizzes.test_bank import write_bank

pytestmark = pytest.mark.django_db

EXAMPLES = ("decode-step-memory-floor", "kv-cache-fits", "bound-by-what", "read-the-ridge-point")


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


@pytest.fixture
def quiz(course):
    quiz = make_quiz(course, slug="hw", examples=EXAMPLES[:1])
    for slug in EXAMPLES[1:]:
        QuestionTemplateFactory(course=course, example=slug)
    return quiz


def _pool_url(slug="hw"):
    return reverse("instructor:quiz_pool", args=[OFFERING, slug])


def _pool(**change):
    return {
        "name": "practice",
        "draw": "2",
        "points": "1.5",
        "templates": list(EXAMPLES[1:]),
        **change,
    }


def _rows(quiz):
    return list(quiz.items.order_by("position").values_list("template__slug", "points", "pool"))


def test_an_instructor_makes_a_pool_that_draws_two_of_three(teacher, quiz, instructor):
    response = teacher.post(_pool_url(), _pool())
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert quiz.pools == {"practice": 2}
    assert _rows(quiz) == [
        ("decode-step-memory-floor", Decimal("1.00"), ""),
        *[(slug, Decimal("1.50"), "practice") for slug in EXAMPLES[1:]],
    ]
    assert quiz.edited_in_browser_at is not None and quiz.edited_by == instructor
    page = teacher.get(reverse("instructor:quiz_items", args=[OFFERING, "hw"])).content.decode()
    assert "draws 2 of 3 per attempt, 1.5 pts each" in page


def test_an_attempt_draws_the_pools_number_of_its_templates(teacher, quiz, student):
    teacher.post(_pool_url(), _pool())
    quiz.refresh_from_db()
    attempt = attempts_service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    pools = list(attempt.variants.values_list("item__pool", flat=True))
    assert sorted(pools) == ["", "practice", "practice"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"draw": "4"}, "Draw from 1 to 3 (the templates chosen) per attempt."),
        ({"draw": "0"}, "Draw from 1 to 3"),
        ({"draw": "-1"}, "Draw from 1 to 3"),
        ({"draw": "two"}, "How many to draw: a whole number"),
        ({"draw": "99999999999999999999"}, "Draw from 1 to 3"),
        ({"templates": []}, "A pool draws from at least two templates"),
        ({"templates": [EXAMPLES[1]], "draw": "1"}, "A pool draws from at least two templates"),
        ({"templates": ["no-such-template", EXAMPLES[1]]}, "Choose published templates"),
        ({"name": "Practice set"}, "lowercase letters, digits and hyphens"),
        ({"name": "retired"}, "holds questions a quiz file dropped"),
        ({"points": "0"}, "more than 0 and at most 1000"),
        ({"points": "1e9"}, "Points must be"),
        ({"points": "NaN"}, "Points must be"),
    ],
)
def test_a_malformed_pool_says_what_is_wrong_and_stores_nothing(teacher, quiz, change, message):
    before = _rows(quiz)
    response = teacher.post(_pool_url(), _pool(**change))
    assert response.status_code == 400
    assert message in response.content.decode()
    quiz.refresh_from_db()
    assert quiz.pools == {} and _rows(quiz) == before and quiz.edited_in_browser_at is None


def test_a_template_is_in_one_pool_only(teacher, quiz):
    teacher.post(_pool_url(), _pool(templates=list(EXAMPLES[1:3]), draw="1"))
    response = teacher.post(_pool_url(), _pool(name="other", templates=list(EXAMPLES[2:])))
    assert response.status_code == 400
    assert "'bound-by-what' is in the pool “practice” already." in unescape(
        response.content.decode()
    )
    assert Quiz.objects.get(pk=quiz.pk).pools == {"practice": 1}


def test_a_question_on_its_own_moves_into_a_pool(teacher, quiz):
    teacher.post(_pool_url(), _pool(templates=[EXAMPLES[0], EXAMPLES[3]], draw="1"))
    assert _rows(quiz) == [
        (EXAMPLES[0], Decimal("1.50"), "practice"),
        (EXAMPLES[3], Decimal("1.50"), "practice"),
    ]


def test_a_pool_is_changed_and_removed(teacher, quiz):
    teacher.post(_pool_url(), _pool())
    form = teacher.get(_pool_url() + "?pool=practice").content.decode()
    assert 'value="practice"' in form and "checked" in form
    teacher.post(_pool_url(), _pool(templates=list(EXAMPLES[2:]), draw="1", points="3"))
    quiz.refresh_from_db()
    assert quiz.pools == {"practice": 1}
    assert [r[0] for r in _rows(quiz)] == [EXAMPLES[0], *EXAMPLES[2:]]
    remove = reverse("instructor:quiz_pool_remove", args=[OFFERING, "hw", "practice"])
    assert teacher.post(remove).status_code == 302
    quiz.refresh_from_db()
    assert quiz.pools == {} and [r[0] for r in _rows(quiz)] == [EXAMPLES[0]]


def test_with_attempts_a_pool_change_is_shown_first_and_saved_when_confirmed(
    teacher, quiz, student
):
    attempts_service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    shown = teacher.post(_pool_url(), _pool())
    assert shown.status_code == 409
    html = shown.content.decode()
    assert "This quiz has 1 attempt" in html and "(1 in progress)" in html
    assert "keep the questions they drew" in html
    assert Quiz.objects.get(pk=quiz.pk).pools == {} and QuizItem.objects.count() == 1
    saved = teacher.post(_pool_url(), {**_pool(), "confirm": "True"})
    assert saved.status_code == 302
    assert Quiz.objects.get(pk=quiz.pk).pools == {"practice": 2}


def test_a_pool_whose_questions_were_given_stays(teacher, quiz, student):
    teacher.post(_pool_url(), _pool(draw="3"))
    attempts_service.start_attempt(
        quiz=Quiz.objects.get(pk=quiz.pk), student=student, now=timezone.now()
    )
    remove = reverse("instructor:quiz_pool_remove", args=[OFFERING, "hw", "practice"])
    response = teacher.post(remove, {"confirm": "1"}, follow=True)
    assert "so it stays" in response.content.decode()
    shrink = teacher.post(
        _pool_url(), {**_pool(templates=list(EXAMPLES[1:3]), draw="1"), "confirm": "True"}
    )
    assert shrink.status_code == 400
    assert "Students were given 'read-the-ridge-point', so it stays" in unescape(
        shrink.content.decode()
    )
    assert Quiz.objects.get(pk=quiz.pk).pools == {"practice": 3}


def test_another_offerings_instructor_and_a_student_change_no_pool(client, quiz, student, course):
    from tests.factories import EnrollmentFactory, OfferingFactory

    other = OfferingFactory(course=course, slug="other")
    stranger = EnrollmentFactory(offering=other, role="instructor").user
    client.force_login(stranger)
    assert client.post(_pool_url(), _pool()).status_code == 403
    client.force_login(student)
    assert client.post(_pool_url(), _pool()).status_code == 403
    assert client.get(reverse("instructor:quiz_file", args=[OFFERING, "hw"])).status_code == 403
    assert Quiz.objects.get(pk=quiz.pk).pools == {}


# ---------------------------------------------------------------- the quiz as a file


@pytest.fixture
def bank(tmp_path, course, offering):
    offering.follows_files = True
    offering.save(update_fields=["follows_files"])
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    return root


NASTY = 'Quiz: "rooflines" # not a comment\n- &anchor *alias {x: [y]} \\ \u00e9 \u2603'


def test_a_browser_made_quiz_written_as_a_file_syncs_back_with_no_change(teacher, bank, course):
    new = {
        "slug": "made-here",
        "title": NASTY.splitlines()[0],
        "description": NASTY + "\n  indented: yes\n",
        "mode": "exam",
        "time_limit_minutes": "45",
        "max_attempts": "2",
        "tries_per_variant": "1",
        "position": "3",
        "opens_at": "2030-03-01T09:00",
        "due_at": "2030-03-08T23:59",
        "closes_at": "2030-03-10T23:59",
        "late_policy": "refuse",
        "late_penalty": "0.125",
        "release": "after_due",
        "show_answers": "never",
        "chapter": "",
    }
    assert teacher.post(reverse("instructor:quiz_new", args=[OFFERING]), new).status_code == 302
    add = reverse("instructor:quiz_add_item", args=[OFFERING, "made-here"])
    assert teacher.post(add, {"template": "floor-a", "points": "2.5"}).status_code == 302
    pool = {"name": "floors", "draw": "1", "points": "0.75", "templates": ["floor-b", "floor-c"]}
    assert teacher.post(_pool_url("made-here"), pool).status_code == 302
    quiz = Quiz.objects.get(slug="made-here")
    before = _rows(quiz), {f.attname: getattr(quiz, f.attname) for f in Quiz._meta.fields}

    download = teacher.get(reverse("instructor:quiz_file", args=[OFFERING, "made-here"]))
    assert download.status_code == 200
    assert download["Content-Disposition"] == 'attachment; filename="made-here.yaml"'
    text = download.content.decode()
    assert yaml.safe_load(text)["description"] == quiz.description  # the characters survive
    parsed = read_quiz_text(text, source="made-here.yaml")
    assert parsed.pools == {"floors": 1} and parsed.title == quiz.title

    (bank / "quizzes" / "made-here.yaml").write_text(text, encoding="utf-8")
    report = sync_bank(bank=read_bank(bank), course=course)
    assert not report.quiz_conflicts, report.summary()
    assert "made-here" in report.quizzes_unchanged
    assert "made-here" not in report.quizzes_updated + report.quizzes_created
    quiz.refresh_from_db()
    after = {f.attname: getattr(quiz, f.attname) for f in Quiz._meta.fields}
    moved = {k for k in after if after[k] != before[1][k]}
    # It follows its file from now on: the file's path and hash, no browser edit pending.
    assert moved == {"source_path", "content_hash", "edited_in_browser_at", "edited_by_id"}
    assert _rows(quiz) == before[0]
    again = sync_bank(bank=read_bank(bank), course=course)
    assert "made-here" in again.quizzes_unchanged and not again.quiz_conflicts


def test_a_file_that_differs_from_the_browser_quiz_is_still_a_conflict(teacher, bank, course):
    quiz = Quiz.objects.get(slug="inference-quiz")
    teacher.post(reverse("instructor:quiz_publish", args=[OFFERING, quiz.slug]), {"published": "0"})
    text = teacher.get(reverse("instructor:quiz_file", args=[OFFERING, quiz.slug])).content
    changed = text.decode().replace("published: false", "published: true")
    (bank / "quizzes" / "inference.yaml").write_text(changed, encoding="utf-8")
    report = sync_bank(bank=read_bank(bank), course=course)
    assert [c.split(" ")[0] for c in report.quiz_conflicts] == ["inference-quiz"]
    assert not Quiz.objects.get(pk=quiz.pk).is_published


def test_a_pool_a_file_named_freely_is_shown_and_not_offered_for_change(teacher, quiz, course):
    from quizzes.models import QuestionTemplate
    from tests.factories import QuizItemFactory

    for position, slug in enumerate(EXAMPLES[1:3], start=2):
        template = QuestionTemplate.objects.get(slug=slug)
        QuizItemFactory(quiz=quiz, template=template, position=position, pool="Week 3 / mix")
    Quiz.objects.filter(pk=quiz.pk).update(pools={"Week 3 / mix": 1})
    page = teacher.get(reverse("instructor:quiz_items", args=[OFFERING, "hw"]))
    assert page.status_code == 200
    html = unescape(page.content.decode())
    assert "Week 3 / mix</strong>: draws 1 of 2" in html and "named in its quiz file" in html
