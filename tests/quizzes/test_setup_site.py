"""`setup_site` belongs to the quizzes app and runs the commands it imports, in order; the demo
it makes has two offerings, taught by two instructors, with the students split between them."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command, get_commands

from courseware.models import Enrollment, Offering
from quizzes.management.commands import setup_site
from quizzes.models import Attempt, Quiz
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db


def test_setup_site_is_a_quizzes_command_running_the_loaders_it_imports(monkeypatch):
    assert get_commands()["setup_site"] == "quizzes"  # not courseware: it depends on quizzes
    ran = []

    def record(command, **options):
        name = type(command).__module__.rsplit(".", 1)[-1]
        ran.append((name, options.get("students"), options.get("offering")))

    monkeypatch.setattr(setup_site, "call_command", record)
    call_command("setup_site", students=3, port="8123", stdout=io.StringIO())
    assert ran == [
        ("sync_content", None, None),
        ("sync_questions", None, None),
        ("seed_demo", 2, "hardware-reality"),
        ("seed_demo", 1, "hardware-reality-2"),
    ]


def test_the_demo_has_two_offerings_each_with_its_own_class(monkeypatch):
    """Run twice (make run is idempotent): section 2 is a copy of section 1 with its own quiz
    rows; each has its instructor and half the class; student1 is in both."""

    def loaders(command, **options):  # the book and the bank: one small quiz stands for them
        name = type(command).__module__.rsplit(".", 1)[-1]
        if name == "sync_questions" and not Quiz.objects.exists():
            make_quiz(Offering.objects.get(slug="hardware-reality"), slug="roofline-quiz")
        elif name == "seed_demo":
            call_command(command, **options)

    monkeypatch.setattr(setup_site, "call_command", loaders)
    for _ in range(2):
        call_command("setup_site", students=4, port="8123", stdout=io.StringIO())

    one, two = Offering.objects.order_by("slug")
    assert (one.slug, two.slug) == ("hardware-reality", "hardware-reality-2")
    assert one.is_default and one.follows_files and not two.follows_files
    assert two.copied_from == one
    assert Quiz.objects.get(offering=two).copied_from == Quiz.objects.get(offering=one)

    def roster(offering):
        return dict(
            Enrollment.objects.filter(offering=offering).values_list("user__username", "role")
        )

    assert roster(one) == {
        "student1": "student",
        "student2": "student",
        "instructor": "instructor",
        "assistant": "ta",
        "demo-student-0001": "student",
        "demo-student-0002": "student",
    }
    assert roster(two) == {
        "student1": "student",
        "student3": "student",
        "instructor2": "instructor",
        "demo-student-0003": "student",
        "demo-student-0004": "student",
    }
    # Each demo student's work is in their own offering's quiz only.
    for attempt in Attempt.objects.select_related("quiz", "student"):
        assert roster(attempt.quiz.offering)[attempt.student.username] == "student"
