"""Two offerings of one course with overlapping quizzes, people in every role in each, and work
in every kind of row: the fixture the isolation suite runs each URL of one offering against the
other's rows and users with (tests/security/test_offering_isolation.py).

Offering B's rows carry sentinels (a student's name, an answer, a quiz title, an override's and
an extension's reason) that no page of offering A may ever show.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration, LtiUser

from courseware.models import (
    AuditEvent,
    Enrollment,
    GroupMembership,
    Offering,
    PasswordLink,
    StudentGroup,
)
from lti.models import ContextOffering, GradeSync, QuizLineItem
from quizzes.models import (
    Accommodation,
    Attempt,
    Extension,
    GroupExtension,
    ItemStatistics,
    ManualGrade,
    ManualGradeEvent,
    Quiz,
    QuizItem,
    RegradeRun,
    Response,
    SavedAnswer,
    SavedComment,
    ScoreOverride,
    Variant,
)
from quizzes.services import attempts as service
from quizzes.services import grading_run, regrade
from quizzes.services.instructor import grant_extension, override_score
from quizzes.services.instructor.accommodations import set_accommodation, set_group_extension
from quizzes.services.submission import submit_attempt
from tests.factories import (
    ChapterFactory,
    EnrollmentFactory,
    OfferingFactory,
    UserFactory,
    check_answer,
    make_quiz,
)

# What only offering B's rows hold: never on a page of offering A.
SENTINELS = (
    "Zelda",
    "Bsentinel",
    "4242424 GB",
    "Sentinel B quiz title",
    "B-override-sentinel",
    "B-extension-sentinel",
    "Bgroup-sentinel",
    "B-accommodation-sentinel",
)


@dataclass
class Side:
    """One offering and everything in it that a URL can name."""

    offering: Offering
    student: object = None
    ta: object = None
    instructor: object = None
    only_quiz: Quiz = None
    shared_quiz: Quiz = None
    open_attempt: Attempt = None
    submitted: Attempt = None
    variant: Variant = None
    item: QuizItem = None
    run: RegradeRun = None
    sync: GradeSync = None
    chapter_slug: str = ""
    # The student enrolled in both offerings: their attempt and variant in this one.
    dual_attempt: Attempt = None
    dual_variant: Variant = None
    extra_students: tuple = ()
    # The roster and the terms (issue 27): a group, its extension, an accommodation.
    extension: Extension = None
    group: StudentGroup = None
    group_extension: GroupExtension = None
    accommodation: Accommodation = None
    # An answer staff grade (a written explanation), submitted and awaiting grading.
    staff_response: Response = None

    def user(self, role: str):
        return {"student": self.student, "ta": self.ta, "instructor": self.instructor}[role]

    def kwargs(self, *, dual: bool = False) -> dict:
        """A value for each URL keyword, naming this side's rows (with `dual`, the attempt and
        variant of the student enrolled in both offerings)."""
        return {
            "offering": self.offering.slug,
            "attempt_id": (self.dual_attempt if dual else self.open_attempt).pk,
            "variant_id": (self.dual_variant if dual else self.variant).pk,
            "part_id": "t",
            "slug": self.only_quiz.slug,
            "quiz_slug": self.only_quiz.slug,
            "chapter_slug": self.chapter_slug,
            "user_id": self.student.pk,
            "item_id": self.item.pk,
            "run_id": self.run.pk,
            "sync_id": self.sync.pk,
            "extension_id": self.extension.pk,
            "group_extension_id": self.group_extension.pk,
            "accommodation_id": self.accommodation.pk,
            "enrollment_id": Enrollment.objects.get(user=self.student, offering=self.offering).pk,
            "group_id": self.group.pk,
            "response_id": self.staff_response.pk,
            "pool": "drawn",
        }

    def body(self) -> dict:
        """A POST body naming this side's rows wherever a form takes an id."""
        return {
            "quiz": self.only_quiz.pk,
            "item": self.item.pk,
            "score": "0.5",
            "reason": "moved across offerings",
            "extra_minutes": "30",
            "answer": "1 GB",
            "idempotency_key": "k" * 32,
            "show_answers": "never",
            "points": "1",
            "template": self.only_quiz.items.first().template.slug,
            "confirm": "1",
            "sequence": "1",
            "group": self.group.pk,
            "student": self.student.pk,
            "students": [self.student.pk],
            "time_multiplier": "1.5",
            "active": "0",
            "role": "ta",
            "username": "moved-across",
            "name": "Moved group",
            "kind": "section",
            "met": ["bytes", "bound"],
            "version": "0",
            "comment": "moved across offerings",
            "keep_comment": "1",
            "draw": "1",
            "templates": [self.only_quiz.items.first().template.slug],
        }


def build(course) -> tuple[Side, Side]:
    a = Side(OfferingFactory(course=course))
    b = Side(OfferingFactory(course=course, slug="section-b", title="Section B"))
    part = ChapterFactory(part__course=course, slug="ch-a").part
    ChapterFactory(part=part, slug="ch-b")
    for side, tag in ((a, "a"), (b, "b")):
        side.chapter_slug = f"ch-{tag}"
        offering = side.offering
        side.student = _person(offering, "student", tag)
        side.ta = _person(offering, "ta", tag)
        side.instructor = _person(offering, "instructor", tag)
        # The same quiz slug (over the same bank template) in both offerings, and one quiz each.
        side.shared_quiz = make_quiz(offering, slug="shared", title="Shared quiz")
        title = "Sentinel B quiz title" if tag == "b" else "Only A quiz"
        side.only_quiz = make_quiz(
            offering,
            slug=f"only-{tag}",
            title=title,
            chapter=part.chapters.get(slug=f"ch-{tag}"),
        )
        side.item = side.only_quiz.items.get()
        _work(side, tag)
        _lms(side, tag)
    # A student in both offerings (the demo's student1), with an open attempt in each.
    dual = UserFactory(username="dual", first_name="Dana", last_name="Dual")
    for side in (a, b):
        EnrollmentFactory(user=dual, offering=side.offering, role="student")
        side.dual_attempt = service.start_attempt(
            quiz=side.shared_quiz, student=dual, now=timezone.now()
        )
        side.dual_variant = side.dual_attempt.variants.get()
    check_answer(b.dual_variant, dual, "4242424 GB")
    a.extra_students = [dual]
    return a, b


def _person(offering, role: str, tag: str):
    names = {"b": ("Zelda", "Bsentinel")} if role == "student" else {}
    first, last = names.get(tag, (f"{role.title()}", f"Of{tag.upper()}"))
    user = UserFactory(username=f"{role}-{tag}", first_name=first, last_name=last)
    EnrollmentFactory(user=user, offering=offering, role=role)
    return user


def _work(side: Side, tag: str) -> None:
    now = timezone.now()
    student = side.student
    answer = "4242424 GB" if tag == "b" else "1111 GB"
    done = service.start_attempt(quiz=side.only_quiz, student=student, now=now)
    check_answer(done.variants.get(), student, answer, now=now)
    submit_attempt(attempt=done, student=student, now=now)
    done.refresh_from_db()
    side.submitted = done
    side.open_attempt = service.start_attempt(quiz=side.shared_quiz, student=student, now=now)
    side.variant = side.open_attempt.variants.get()
    check_answer(side.variant, student, answer, now=now)
    override_score(
        attempt=done, score="0.5", reason=f"{tag.upper()}-override-sentinel", by=side.instructor
    )
    side.extension = grant_extension(
        quiz=side.only_quiz,
        student=student,
        by=side.instructor,
        extra_minutes=15,
        reason=f"{tag.upper()}-extension-sentinel",
    )
    side.group = StudentGroup.objects.create(
        offering=side.offering, name=f"{tag.upper()}group-sentinel"
    )
    GroupMembership.objects.create(group=side.group, user=student)
    side.group_extension = set_group_extension(
        quiz=side.only_quiz, group=side.group, by=side.instructor, extra_attempts=1
    )
    side.accommodation = set_accommodation(
        offering=side.offering,
        by=side.instructor,
        time_multiplier="1.5",
        student=student,
        reason=f"{tag.upper()}-accommodation-sentinel",
    )
    written = make_quiz(
        side.offering,
        examples=("explain-why-decode-is-memory-bound",),
        slug=f"written-{tag}",
        mode="exam",
        time_limit_minutes=60,
    )
    essay = service.start_attempt(quiz=written, student=student, now=now)
    service.autosave(
        variant=essay.variants.get(),
        part_id="why",
        raw=f"{answer} is why.",
        student=student,
        now=now,
    )
    submit_attempt(attempt=essay, student=student, now=now)
    # The world's tasks wait in the database (nothing a request queues runs), so the essay is
    # graded here as the task worker would grade it after the submission.
    grading_run.grade_submitted(attempt_id=essay.pk)
    side.staff_response = Response.objects.get(variant__attempt=essay)
    template = side.item.template
    side.run = regrade.preview_regrade(
        offering=side.offering,
        template=template,
        target_version=template.current_version,
        recompute_answers=False,
        by=side.instructor,
    )


def _lms(side: Side, tag: str) -> None:
    registration, _ = LtiRegistration.objects.get_or_create(
        issuer="https://lms.invalid",
        client_id="tool",
        defaults={
            "name": "LMS",
            "auth_url": "https://lms.invalid/auth",
            "token_url": "https://lms.invalid/token",
            "keyset_url": "https://lms.invalid/jwks",
        },
    )
    deployment, _ = LtiDeployment.objects.get_or_create(
        registration=registration, deployment_id="d", defaults={"is_active": True}
    )
    context = LtiContext.objects.create(deployment=deployment, id_on_platform=f"course-{tag}")
    if tag == "b":  # offering A has no LMS course: its roster sync stops at once
        ContextOffering.objects.create(context=context, offering=side.offering)
    line = QuizLineItem.objects.create(
        context=context, quiz=side.only_quiz, url=f"https://lms.invalid/{tag}/lineitems/1"
    )
    lti_user = LtiUser.objects.create(registration=registration, sub=f"sub-{tag}")
    lti_user.auth_user = side.student
    lti_user.save()
    side.sync = GradeSync.objects.create(line_item=line, lti_user=lti_user, user=side.student)


def snapshot(offering) -> list:
    """Every row of the offering, field by field."""
    scoped = [
        Offering.objects.filter(pk=offering.pk),
        Enrollment.objects.filter(offering=offering),
        Quiz.objects.filter(offering=offering),
        QuizItem.objects.filter(quiz__offering=offering),
        Attempt.objects.filter(quiz__offering=offering),
        Variant.objects.filter(attempt__quiz__offering=offering),
        Response.objects.filter(variant__attempt__quiz__offering=offering),
        ManualGrade.objects.filter(response__variant__attempt__quiz__offering=offering),
        ManualGradeEvent.objects.filter(response__variant__attempt__quiz__offering=offering),
        SavedComment.objects.filter(item__quiz__offering=offering),
        SavedAnswer.objects.filter(variant__attempt__quiz__offering=offering),
        ScoreOverride.objects.filter(attempt__quiz__offering=offering),
        Extension.objects.filter(quiz__offering=offering),
        StudentGroup.objects.filter(offering=offering),
        GroupMembership.objects.filter(group__offering=offering),
        GroupExtension.objects.filter(quiz__offering=offering),
        Accommodation.objects.filter(offering=offering),
        PasswordLink.objects.filter(offering=offering),
        AuditEvent.objects.filter(offering=offering),
        RegradeRun.objects.filter(offering=offering),
        ItemStatistics.objects.filter(offering=offering),
        ContextOffering.objects.filter(offering=offering),
        QuizLineItem.objects.filter(quiz__offering=offering),
        GradeSync.objects.filter(line_item__quiz__offering=offering),
    ]
    # Its people's accounts: names, e-mails, passwords (a roster file or a link changes them);
    # not their last login, which the suite's own logins move.
    people = get_user_model().objects.filter(enrollments__offering=offering).order_by("pk")
    account_fields = ("pk", "password", "username", "first_name", "last_name", "email")
    return [list(rows.order_by("pk").values()) for rows in scoped] + [
        list(people.values(*account_fields, "is_active", "is_staff", "is_superuser"))
    ]
