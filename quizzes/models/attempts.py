"""A student's work: attempts, the variants they were given, and every response."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from courseware.caching import StampedQuerySet


class AttemptStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", "In progress"
    SUBMITTED = "submitted", "Submitted"


class AttemptQuerySet(StampedQuerySet):
    def for_student(self, user) -> AttemptQuerySet:
        return self.filter(student=user)

    def submitted(self) -> AttemptQuerySet:
        return self.filter(status=AttemptStatus.SUBMITTED)


class Attempt(models.Model):
    quiz = models.ForeignKey("quizzes.Quiz", on_delete=models.CASCADE, related_name="attempts")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    number = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=20, choices=AttemptStatus.choices, default=AttemptStatus.IN_PROGRESS
    )
    started_at = models.DateTimeField(auto_now_add=True)
    # Exam mode: the server-side end of the time limit (and of any extension).
    deadline = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    auto_submitted = models.BooleanField(default=False)
    is_late = models.BooleanField(default=False)
    # The quiz items this attempt drew (pools draw a subset), in order.
    item_ids = models.JSONField(default=list)
    score = models.DecimalField(max_digits=8, decimal_places=3, null=True, blank=True)
    max_score = models.DecimalField(max_digits=8, decimal_places=3, default=0)
    # Parts of the counted answers still awaiting a staff grade: while above 0 the score is
    # provisional (pages say so, the LMS hears "PendingManual"). Set when the submission is
    # graded and by `services.manual_grading`.
    awaiting_grading = models.PositiveSmallIntegerField(default=0)
    # An exam submitted and not yet graded: when its grading was queued (the task worker
    # grades it, `services.grading_run`); None once graded, and for every other attempt. Its
    # score is None meanwhile, and pages say "being graded", never 0.
    grading_queued_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(auto_now=True)
    # Raised, in the same transaction, by every write that changes what the attempt's page
    # shows (an answer, a save, new numbers, a regrade, a score change): the page's memo
    # (`presenters.page_memo`) is keyed on it, so a page drawn before a write is never found.
    page_stamp = models.PositiveBigIntegerField(default=0, editable=False)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["quiz", "student", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "student", "number"], name="one_attempt_number_per_student"
            ),
            # At most one open attempt per student and quiz, even under concurrent starts.
            models.UniqueConstraint(
                fields=["quiz", "student"],
                condition=Q(status=AttemptStatus.IN_PROGRESS),
                name="one_open_attempt",
            ),
        ]
        indexes = [
            models.Index(fields=["student", "quiz"]),
            # The few exams waiting for their grade (the overdue sweep reads them).
            models.Index(
                fields=["grading_queued_at"],
                condition=Q(grading_queued_at__isnull=False),
                name="attempt_grading_waiting",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.student} · {self.quiz.slug} · attempt {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("quizzes:attempt_detail", args=[self.quiz.offering.slug, self.pk])

    @property
    def is_open(self) -> bool:
        return self.status == AttemptStatus.IN_PROGRESS

    @property
    def is_submitted(self) -> bool:
        return self.status == AttemptStatus.SUBMITTED

    @property
    def is_grading(self) -> bool:
        """Submitted, its answers frozen, and not yet graded by the task worker."""
        return self.grading_queued_at is not None

    @property
    def is_provisional(self) -> bool:
        """Submitted with parts still awaiting a staff grade: the score may still rise."""
        return self.awaiting_grading > 0


class Variant(models.Model):
    """The numbers one student got for one quiz item: stored whole, so grading never drifts.

    `parameters` is exactly what the student was shown; `answers` holds the correct answers and
    common-error values per part (never sent to the browser before the part's final submission).
    """

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="variants")
    item = models.ForeignKey("quizzes.QuizItem", on_delete=models.PROTECT, related_name="variants")
    version = models.ForeignKey(
        "quizzes.TemplateVersion", on_delete=models.PROTECT, related_name="variants"
    )
    # 0 for the first variant of an item in an attempt; homework hands out 1, 2, ... after
    # the tries are spent or when the student asks for practice numbers.
    index = models.PositiveSmallIntegerField(default=0)
    seed = models.CharField(max_length=64)
    parameters = models.JSONField()
    answers = models.JSONField()
    outcome = models.CharField(max_length=50, blank=True)
    is_practice = models.BooleanField(default=False)
    score = models.FloatField(default=0.0, help_text="Fraction 0..1 of the item's points.")
    created_at = models.DateTimeField(auto_now_add=True)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        ordering = ["attempt", "item__position", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "item", "index"], name="one_variant_per_index"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.attempt} · {self.item.template.slug} · variant {self.index}"


class ResponseStatus(models.TextChoices):
    CORRECT = "correct", "Correct"
    INCORRECT = "incorrect", "Incorrect"
    INVALID = "invalid", "Invalid"
    # A part graded by staff (its kind says so): taken, counted as a try, scored 0 until a
    # grader grades it, then "graded" with the rubric's share as its score (models.manual).
    PENDING = "pending", "Awaiting grading"
    GRADED = "graded", "Graded by staff"


class ResponseSource(models.TextChoices):
    """Who made a response: the student's own Check (keyed by the form) or the server."""

    CHECK = "check", "Checked by the student"
    EXAM = "exam", "Graded when the exam was submitted"


class Response(models.Model):
    """One submitted answer to one part of a variant, with its grade.

    A Check carries the idempotency key of the form it came from; that key only ever
    deduplicates the same variant's same part (so one student's key can never name, or claim,
    another student's answer). Server-made responses (an exam graded at submission) carry no
    key at all: they live in their own namespace, one per part, and no client string reaches it.
    """

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="responses")
    part_id = models.CharField(max_length=50)
    raw = models.TextField()
    status = models.CharField(max_length=20, choices=ResponseStatus.choices)
    score = models.FloatField()
    feedback = models.TextField(blank=True)
    diagnosis = models.CharField(max_length=50, blank=True)
    interpreted = models.TextField(blank=True)
    # Where a formula differs from the expected one (a point and both values); shown to the
    # student only once the part is final (quizzes.services.feedback_release).
    counterexample = models.TextField(blank=True, default="")
    value = models.FloatField(null=True, blank=True)
    # Invalid responses cost no try: they carry no try number.
    try_number = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.CharField(
        max_length=10, choices=ResponseSource.choices, default=ResponseSource.CHECK
    )
    idempotency_key = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    regraded_at = models.DateTimeField(null=True, blank=True)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        ordering = ["variant", "part_id", "created_at"]
        constraints = [
            # Two concurrent posts can never both become "try 2" of the same part.
            models.UniqueConstraint(
                fields=["variant", "part_id", "try_number"],
                condition=Q(try_number__isnull=False),
                name="one_response_per_try",
            ),
            models.UniqueConstraint(
                fields=["variant", "part_id", "idempotency_key"],
                condition=Q(source="check"),
                name="one_response_per_key",
            ),
            models.UniqueConstraint(
                fields=["variant", "part_id"],
                condition=Q(source="exam"),
                name="one_exam_grade_per_part",
            ),
            # A Check always has its form's key; a server-made response never has one.
            models.CheckConstraint(
                condition=(Q(source="check") & ~Q(idempotency_key=""))
                | (Q(source="exam") & Q(idempotency_key="")),
                name="key_only_on_checks",
            ),
            models.CheckConstraint(
                condition=Q(score__gte=0) & Q(score__lte=1), name="response_score_is_a_fraction"
            ),
        ]
        indexes = [
            models.Index(fields=["variant", "part_id"]),
            models.Index(fields=["diagnosis"]),
        ]

    def __str__(self) -> str:
        return f"{self.variant} · part {self.part_id} · {self.status}"

    @property
    def awaits_grading(self) -> bool:
        """Taken for staff to grade, not graded yet: it has no score, not a score of 0."""
        return self.status == ResponseStatus.PENDING


class SavedAnswer(models.Model):
    """Exam mode: the latest text typed into a part, saved as the student types."""

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="saved_answers")
    part_id = models.CharField(max_length=50)
    raw = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The page's save sequence (it only grows; see `services.attempts.autosave`): a save
    # applies only when its sequence is at least this one, so a slow request that arrives
    # after a newer save of the same part cannot overwrite it. 0: saved without a sequence.
    sequence = models.PositiveBigIntegerField(default=0)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant", "part_id"], name="one_saved_answer"),
        ]

    def __str__(self) -> str:
        return f"{self.variant} · part {self.part_id} (saved)"
