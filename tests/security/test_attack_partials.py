"""The review's partial findings (issue 33): each attack kept as a test that failed before.

- one choice option's id `right` reached the page source (roofline-attention-intensity);
- a quote in a student's answer turned the grader's feedback into live Markdown;
- long validation posts queued without limit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from quizzes import tasks
from quizzes.models import Response
from quizzes.services import attempts as service
from quizzes.services import authoring
from quizzes.services.questions import correct_answers, option_ids_by_token
from tests.factories import (
    OFFERING,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
    site_role,
)
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db

BANK = Path(__file__).resolve().parents[2] / "content" / "questions"


# -- option ids ---------------------------------------------------------------------------------


def _quiz_of(course, slug: str, text: str):
    template = QuestionTemplateFactory(course=course, slug=slug, draft_source=text)
    quiz = QuizFactory(course=course)
    QuizItemFactory(quiz=quiz, template=template, position=1)
    return quiz


def test_no_option_id_reaches_the_page_only_opaque_names(client, course, student):
    text = (BANK / "roofline" / "roofline-attention-intensity.yaml").read_text()
    assert "- id: right" in text  # the review's case: an id that names the right option
    quiz = _quiz_of(course, "roofline-attention-intensity", text)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client.force_login(student)
    html = client.get(attempt.get_absolute_url()).content.decode()
    values = re.findall(r'name="answer" value="([^"]*)"', html)
    order = variant.answers["option_order"]
    ids = {option for options in order.values() for option in options}
    assert values and not set(values) & ids
    assert 'value="right"' not in html
    # Each name is one variant's own: another student's page names the same option otherwise.
    other = EnrollmentFactory(course=course, role="student").user
    theirs = service.start_attempt(quiz=quiz, student=other, now=timezone.now()).variants.get()
    for part_id in order:
        assert set(option_ids_by_token(variant, part_id)).isdisjoint(
            option_ids_by_token(theirs, part_id)
        )


def test_the_posted_name_is_graded_as_its_option(client, course, student):
    text = (BANK / "roofline" / "roofline-attention-intensity.yaml").read_text()
    quiz = _quiz_of(course, "roofline-attention-intensity", text)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    part_id = next(iter(variant.answers["option_order"]))
    right = correct_answers(variant)[part_id]
    names = {option: token for token, option in option_ids_by_token(variant, part_id).items()}
    client.force_login(student)
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part_id])
    client.post(url, {"answer": [names[o] for o in right], "idempotency_key": "k" * 20})
    stored = Response.objects.get(variant=variant, part_id=part_id)
    assert stored.status == "correct"
    assert not any(token in stored.raw for token in names.values())  # ids are stored


# -- a quote in an answer ---------------------------------------------------------------------


HOSTILE = "5 G'B *bold* [link](https://evil.example/) '"


def test_a_quote_in_an_answer_leaves_the_feedback_literal(client, course, student):
    from tests.factories import make_quiz

    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    checked = service.check_answer(
        variant=variant,
        part_id="t",
        raw=HOSTILE,
        student=student,
        idempotency_key="q" * 16,
        now=timezone.now(),
    )
    assert "*bold*" in checked.response.feedback  # the grader quotes the answer back
    client.force_login(student)
    html = client.get(attempt.get_absolute_url()).content.decode()
    feedback = html[html.index("Could not read the unit") :].split("</p>")[0]
    assert "<em>" not in feedback and "<a " not in feedback and "evil.example" in feedback
    assert "*bold*" in feedback


# -- the validation queue ---------------------------------------------------------------------


def _post_validation(client, template, seeds=1000):
    return client.post(reverse("studio:template_validate", args=[template.slug]), {"seeds": seeds})


def test_long_validations_queue_at_most_one_per_template_and_two_per_author(
    client, course, author, database_tasks
):
    client.force_login(author)
    first, second, third = (make_template(course, slug=f"queued-{n}") for n in range(3))
    assert _post_validation(client, first).status_code == 200
    again = _post_validation(client, first)
    assert again.status_code == 400 and "already waiting" in again.content.decode()
    assert _post_validation(client, second).status_code == 200
    refused = _post_validation(client, third)
    assert refused.status_code == 400
    assert "You have 2 long validations waiting" in refused.content.decode()
    assert DBTaskResult.objects.filter(task_path__endswith="validate_draft_seeds").count() == 2


def test_the_site_queues_at_most_ten_long_validations(course, database_tasks):
    authors = [site_role(UserFactory()).user for _ in range(6)]  # authors are site-wide
    queued = 0
    for number, author in enumerate(authors * 2):
        template = make_template(course, slug=f"site-{number}")
        try:
            tasks.request_validation(template=template, seeds=1000, by=author)
            queued += 1
        except authoring.AuthoringError as refusal:
            assert "10 long validations are waiting" in str(refusal)
    assert queued == tasks.MAX_QUEUED_VALIDATIONS == 10
