"""The move from one course to offerings: a site's rows as the old schema held them, migrated,
each one checked (issue 26: nothing lost in the move)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from courseware.models import Enrollment, Offering, SiteRole
from lti.models import ContextOffering, GradeSync, QuizLineItem
from quizzes.models import (
    Attempt,
    Extension,
    ItemStatistics,
    Quiz,
    RegradeRun,
    Response,
    SavedAnswer,
    ScoreOverride,
    Variant,
)

OLD = [
    ("courseware", "0001_initial"),
    ("quizzes", "0009_attempt_page_stamp"),
    ("lti", "0001_lti_framing_nonces_line_items_grade_sync"),
]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


@pytest.mark.django_db(transaction=True)
def test_the_single_course_becomes_one_offering_with_every_row_intact(settings):
    settings.COURSE_SLUG = "hardware-reality"
    executor = _migrate(OLD)
    try:
        rows = _old_site(executor.loader.project_state(OLD).apps)
    finally:
        _migrate(None)

    offering = Offering.objects.get()
    assert (offering.slug, offering.title, offering.course_id) == (
        "hardware-reality",
        "The Hardware Reality",
        rows["course"],
    )
    assert offering.is_default and offering.follows_files and not offering.is_archived

    # Roles: students and instructors keep theirs in the offering; the author is a site author.
    held = {e.user.username: (e.role, e.source) for e in Enrollment.objects.select_related("user")}
    assert held == {
        "ada": ("student", "site"),
        "iris": ("instructor", "site"),
        "lti-learner": ("student", "lms"),
    }
    assert list(SiteRole.objects.values_list("user__username", "role")) == [("arlo", "author")]

    # Every quiz is the offering's; everything that hangs off quizzes and attempts is untouched.
    quiz = Quiz.objects.get()
    assert quiz.pk == rows["quiz"] and quiz.offering == offering and quiz.slug == "roofline"
    assert quiz.due_at == rows["due_at"] and quiz.copied_from is None
    attempt = Attempt.objects.get()
    assert (attempt.pk, attempt.quiz_id, attempt.score) == (rows["attempt"], quiz.pk, Decimal("2"))
    assert Variant.objects.get().pk == rows["variant"]
    assert sorted(Response.objects.values_list("pk", "raw", "score")) == rows["responses"]
    assert SavedAnswer.objects.get().raw == "12 GB"
    override = ScoreOverride.objects.get()
    assert (override.attempt_id, override.score, override.reason) == (
        attempt.pk,
        Decimal("2"),
        "Counted the unit",
    )
    extension = Extension.objects.get()
    assert (extension.quiz_id, extension.extra_minutes) == (quiz.pk, 15)
    run = RegradeRun.objects.get()
    assert run.offering == offering and run.changed == 1 and run.preview == [{"attempt": 1}]
    stats = ItemStatistics.objects.get()
    assert stats.offering == offering and stats.data == {"observations": 3}

    # The LMS: the context maps to the offering, line items and grade syncs keep their rows.
    link = ContextOffering.objects.get()
    assert (link.context_id, link.offering) == (rows["context"], offering)
    line = QuizLineItem.objects.get()
    assert (line.pk, line.quiz_id, line.url, line.resource_link) == (
        rows["line_item"],
        quiz.pk,
        "https://lms.example/lineitems/1",
        None,
    )
    sync = GradeSync.objects.get()
    assert (sync.line_item_id, sync.sent_score, sync.status) == (line.pk, Decimal("2"), "sent")


def _old_site(apps) -> dict:
    """A site with one course as the old schema held it: people in each role, a quiz with an
    answered, overridden, extended and regraded attempt, kept statistics, and an LMS link with
    a line item and a sent score."""
    User = apps.get_model("auth", "User")
    Course = apps.get_model("courseware", "Course")
    OldEnrollment = apps.get_model("courseware", "Enrollment")
    Template = apps.get_model("quizzes", "QuestionTemplate")
    Version = apps.get_model("quizzes", "TemplateVersion")
    OldQuiz = apps.get_model("quizzes", "Quiz")
    Item = apps.get_model("quizzes", "QuizItem")
    OldAttempt = apps.get_model("quizzes", "Attempt")
    OldVariant = apps.get_model("quizzes", "Variant")
    OldResponse = apps.get_model("quizzes", "Response")
    Saved = apps.get_model("quizzes", "SavedAnswer")
    Override = apps.get_model("quizzes", "ScoreOverride")
    OldExtension = apps.get_model("quizzes", "Extension")
    Run = apps.get_model("quizzes", "RegradeRun")
    Stats = apps.get_model("quizzes", "ItemStatistics")
    Registration = apps.get_model("lti_tool", "LtiRegistration")
    Deployment = apps.get_model("lti_tool", "LtiDeployment")
    Context = apps.get_model("lti_tool", "LtiContext")
    LtiUser = apps.get_model("lti_tool", "LtiUser")
    ContextCourse = apps.get_model("lti", "ContextCourse")
    LineItem = apps.get_model("lti", "QuizLineItem")
    Sync = apps.get_model("lti", "GradeSync")

    course = Course.objects.create(slug="hardware-reality", title="The Hardware Reality")
    people = {name: User.objects.create(username=name) for name in ("ada", "iris", "arlo")}
    people["lti-learner"] = User.objects.create(username="lti-learner")
    for name, role in (
        ("ada", "student"),
        ("iris", "instructor"),
        ("arlo", "author"),
        ("lti-learner", "student"),
    ):
        OldEnrollment.objects.create(user=people[name], course=course, role=role)
    template = Template.objects.create(course=course, slug="ridge", title="R", draft_source="x")
    v1 = Version.objects.create(template=template, number=1, source="x", title="R")
    v2 = Version.objects.create(template=template, number=2, source="y", title="R")
    due = timezone.now().replace(microsecond=0)
    quiz = OldQuiz.objects.create(course=course, slug="roofline", title="Roofline", due_at=due)
    item = Item.objects.create(quiz=quiz, template=template, position=1)
    ada = people["ada"]
    attempt = OldAttempt.objects.create(
        quiz=quiz, student=ada, number=1, status="submitted", score=2, max_score=3
    )
    variant = OldVariant.objects.create(
        attempt=attempt, item=item, version=v1, seed="s", parameters={"a": 1}, answers={}
    )
    made = [
        OldResponse.objects.create(
            variant=variant,
            part_id="t",
            raw=raw,
            status=status,
            score=score,
            try_number=n,
            idempotency_key=f"k{n}",
        )
        for n, (raw, status, score) in enumerate(
            [("3 GB", "incorrect", 0.0), ("12 GB", "correct", 1.0)], start=1
        )
    ]
    Saved.objects.create(variant=variant, part_id="t", raw="12 GB")
    Override.objects.create(attempt=attempt, score=2, reason="Counted the unit")
    OldExtension.objects.create(quiz=quiz, student=ada, extra_minutes=15)
    Run.objects.create(
        template=template, target_version=v2, status="applied", changed=1, preview=[{"attempt": 1}]
    )
    Stats.objects.create(
        template=template, quiz_key=0, data={"observations": 3}, computed_at=timezone.now()
    )
    registration = Registration.objects.create(
        name="LMS",
        issuer="https://lms.example",
        client_id="c",
        auth_url="https://lms.example/auth",
        token_url="https://lms.example/token",
        keyset_url="https://lms.example/jwks",
    )
    deployment = Deployment.objects.create(registration=registration, deployment_id="d")
    context = Context.objects.create(deployment=deployment, id_on_platform="course-1")
    ContextCourse.objects.create(context=context, course=course)
    lti_user = LtiUser.objects.create(
        registration=registration, sub="s-1", auth_user=people["lti-learner"]
    )
    line = LineItem.objects.create(
        context=context, quiz=quiz, url="https://lms.example/lineitems/1"
    )
    Sync.objects.create(
        line_item=line, lti_user=lti_user, user=people["lti-learner"], status="sent", sent_score=2
    )
    return {
        "course": course.pk,
        "quiz": quiz.pk,
        "due_at": due,
        "attempt": attempt.pk,
        "variant": variant.pk,
        "responses": sorted((r.pk, r.raw, r.score) for r in made),
        "context": context.pk,
        "line_item": line.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_the_move_goes_back_to_one_course_and_forward_again_with_rows_in_it(settings):
    """Back across the offerings migrations with a site's rows in them, then forward again.
    On PostgreSQL each data step left foreign-key checks queued, and the schema step after it
    failed with "pending trigger events" (the known gap of issue 26's first note)."""
    settings.COURSE_SLUG = "hardware-reality"
    executor = _migrate(OLD)
    try:
        rows = _old_site(executor.loader.project_state(OLD).apps)
        _migrate(None)
        executor = _migrate(OLD)
        apps = executor.loader.project_state(OLD).apps
        held = {
            (e.user.username, e.role, e.course_id)
            for e in apps.get_model("courseware", "Enrollment").objects.select_related("user")
        }
        quiz_course = apps.get_model("quizzes", "Quiz").objects.get().course_id
        link_course = apps.get_model("lti", "ContextCourse").objects.get().course_id
    finally:
        _migrate(None)
    assert held == {
        ("ada", "student", rows["course"]),
        ("iris", "instructor", rows["course"]),
        ("arlo", "author", rows["course"]),
        ("lti-learner", "student", rows["course"]),
    }
    assert quiz_course == link_course == rows["course"]
    assert Quiz.objects.get().offering == Offering.objects.get()
    assert Attempt.objects.get().pk == rows["attempt"]
