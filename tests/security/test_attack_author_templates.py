"""An author's template cannot exhaust a server (issue 33, S2).

The review: a 3 s studio preview ran 5.8 s and grew the web process by about 275 MB; and a
version whose expensive draw only occurred on seeds the publication gate never tried was
published, then fired when a student started the quiz, holding SQLite's write lock for 36 s.
Now previews, the bank reader's draws and the gate run in the sandbox (a process with a memory
limit and a clock), the gate draws every parameter's extremes, and a student's variants are
computed before the transaction that stores them.
"""

from __future__ import annotations

import time
import types

import pytest
from django.db import connection
from django.utils import timezone

from quizzes.engine import sandbox
from quizzes.models import QuestionTemplate
from quizzes.services import attempts, authoring, questions
from tests.factories import make_quiz
from tests.security.sandbox_jobs import memory_hog, sleeper

# Each call is within its limits and costs ~6 ms; twenty of them in one expression, many
# expressions: a draw that takes seconds.
_HEAVY = " + ".join(f"coalescing_efficiency({i + 1}, 128, 4, 1024)" for i in range(20))


def _draft(slug: str, heavy_params: int, when: str = "True") -> str:
    heavy = "\n".join(
        f'  h{i}: {{value: "({_HEAVY}) if {when} else 0"}}' for i in range(heavy_params)
    )
    return f"""slug: {slug}
title: Heavy
chapter: gpus
difficulty: 2
objectives:
  - Add one
min_variants: 1
parameters:
  n: {{range: [1, 1000000]}}
{heavy}
prompt: |
  Take {{{{ n }}}}.
parts:
  - id: t
    kind: numeric
    prompt: What is n plus one?
    answer: "n + 1"
    unit: s
    rtol: 0.02
    plausible: [1, 2000000]
solution: |
  It is {{{{ part_t | s }}}}.
"""


def test_the_sandbox_refuses_work_past_its_memory_limit():
    with pytest.raises(sandbox.Refused) as refused:
        sandbox.run_limited(memory_hog, seconds=30)
    assert refused.value.reason == "memory"
    assert "MB allowed" in str(refused.value)
    # The process that ran it is usable again.
    assert sandbox.run_limited(sleeper, 10, duration=0) == "woke"


def test_the_sandbox_kills_work_past_its_clock_and_keeps_serving():
    with pytest.raises(sandbox.Refused) as refused:
        sandbox.run_limited(sleeper, 0.5, duration=60)
    assert refused.value.reason == "time"
    assert "longer than 0.5 s" in str(refused.value)
    assert sandbox.run_limited(sleeper, 10, duration=0) == "woke"


@pytest.mark.django_db
def test_a_preview_that_outruns_its_budget_is_stopped_in_the_sandbox(
    course, author, settings, monkeypatch
):
    settings.QUIZ_PREVIEW_BUDGET_SECONDS = 0.3
    monkeypatch.setattr(sandbox, "GRACE_S", 0.2)
    # One draw does the work of 12 heavy expressions (about 1.5 s here): the bank reader's
    # smoke draws are stopped in the sandbox as well, and say so.
    preview = authoring.build_preview(_draft("slow-preview", 12), 5)
    assert "could not be shown within the preview's budget of 0.3 s" in preview.error
    # Stopped either by the sandbox's clock or, on a loaded machine where the budget is spent
    # before the first draw begins, by the draw's own deadline: never run to its end.
    assert "and was stopped" in preview.error or "time budget ran out" in preview.error
    assert not preview.parts


@pytest.mark.django_db
def test_the_gate_refuses_a_version_that_is_expensive_only_at_an_extreme(course, author, settings):
    settings.QUIZ_PUBLICATION_SEEDS = 20
    settings.QUIZ_VARIANT_BUDGET_SECONDS = 0.2
    template = authoring.create_template(
        course=course, user=author, kind="numeric", slug="corner-cost"
    )
    # Cheap on every seed the gate draws; about 1.2 s of CPU when n is at the top of its range
    # (20 expressions of 20 calls at ~3 ms on a quiet machine): six times the 0.2 s allowed.
    # With 5 expressions (0.3 s) a quiet machine's warm re-measurement came under the budget.
    text = _draft("corner-cost", 20, when="n == 1000000")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    template.refresh_from_db()
    with pytest.raises(authoring.AuthoringError, match="fails validation"):
        authoring.publish_draft(template=template, revision=template.draft_revision, user=author)
    report = QuestionTemplate.objects.get(pk=template.pk).last_validation
    cost = [f for f in report["failures"] if f["check"] == "cost"]
    assert cost and "n=1000000" in cost[0]["message"]
    assert "a student's variant may take" in cost[0]["message"]
    assert QuestionTemplate.objects.get(pk=template.pk).current_version is None


def test_the_gate_draws_every_choice_and_both_ends_of_each_range():
    from quizzes.engine import parse_template
    from quizzes.engine.validate.extremes import extreme_assignments

    template = parse_template(
        _draft("corners", 0).replace(
            "  n: {range: [1, 1000000]}",
            "  n: {range: [1, 1000000]}\n  d: {choice: [fp16, int8, fp8]}\n"
            "  x: {loguniform: [0.001, 10], sig: 2}\n  s: {range: [0, 1], step: 0.3}",
        ),
        source="corners",
    )
    drawn = extreme_assignments(template)
    assert {a["n"] for a in drawn} == {1, 1000000}
    assert {a["d"] for a in drawn} == {"fp16", "int8", "fp8"}
    assert {a["x"] for a in drawn} == {0.001, 10.0}
    assert {a["s"] for a in drawn} == {0.0, 0.9}
    assert len(drawn) == 2 * 3 * 2 * 2


def test_a_choice_that_repeats_a_value_to_weight_the_draw_gets_its_distinct_corners():
    # gpus-peak-from-clock draws [memory, memory, compute]: 324 combinations counted, 216
    # distinct, so the random fill up to 256 waited for combinations that do not exist (the gate
    # hung until its clock stopped it). Here 3 x 3 counted, 2 x 3 distinct, 8 allowed.
    from quizzes.engine import parse_template
    from quizzes.engine.validate.extremes import extreme_assignments

    template = parse_template(
        _draft("weighted", 0).replace(
            "  n: {range: [1, 1000000]}",
            "  n: {choice: [1, 2, 3]}\n  k: {choice: [memory, memory, compute]}",
        ),
        source="weighted",
    )
    drawn = extreme_assignments(template, limit=8)
    assert sorted((a["n"], a["k"]) for a in drawn) == sorted(
        (n, k) for n in (1, 2, 3) for k in ("memory", "compute")
    )


@pytest.mark.django_db(transaction=True)
def test_a_students_variants_are_computed_with_no_transaction_open(student, course, monkeypatch):
    quiz = make_quiz(course, examples=("decode-step-memory-floor", "kv-cache-fits"))
    real = questions.new_variant_fields
    seen = []

    def watched(version, seed):
        seen.append(connection.in_atomic_block)
        return real(version, seed)

    monkeypatch.setattr(questions, "new_variant_fields", watched)
    attempt = attempts.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert attempt.variants.count() == 2
    # No transaction (and so no SQLite write lock) was open while any variant was drawn.
    assert seen and not any(seen)


@pytest.mark.django_db
def test_a_students_draw_loop_is_cut_short_by_its_deadline(course, student, monkeypatch):
    from quizzes.engine import variants
    from quizzes.services.availability import QuizRuleError
    from tests.factories import QuestionTemplateFactory, QuizFactory, QuizItemFactory

    # Each draw computes a heavy parameter (about 0.13 s), and the constraint rejects nearly
    # every draw: published anyway (say its gate ran before the limits), a start would spend
    # max_tries draws on it while the student waits.
    text = _draft("rejecting", 1).replace(
        "parameters:", 'max_tries: 40\nconstraints:\n  - "n == 1"\nparameters:'
    )
    template = QuestionTemplateFactory(course=course, slug="rejecting", draft_source=text)
    quiz = QuizFactory(course=course)
    QuizItemFactory(quiz=quiz, template=template, position=1)
    monkeypatch.setattr(questions, "STUDENT_DRAW_SECONDS", 0.3)
    # The clock the deadline reads is the test's own: each parameter drawn costs 0.1 s of it,
    # so the count below does not depend on how fast this machine computes (a fast CI machine
    # fitted ten real draws into 0.3 s).
    clock = [0.0]
    fake_time = types.SimpleNamespace(**vars(time))
    fake_time.monotonic = lambda: clock[0]
    monkeypatch.setattr(variants, "time", fake_time)
    monkeypatch.setattr(questions, "time", fake_time)
    draws = []
    real = variants._draw

    def counted(*args, **kwargs):
        draws.append(1)
        clock[0] += 0.1
        return real(*args, **kwargs)

    monkeypatch.setattr(variants, "_draw", counted)
    with pytest.raises(QuizRuleError, match="could not be generated"):
        attempts.start_attempt(quiz=quiz, student=student, now=timezone.now())
    # Two parameters a draw at 0.1 s each: the first draw ends at 0.2 s, the second at 0.4 s,
    # past the 0.3 s budget, so the loop stops after two draws of its forty.
    assert len(draws) == 2 * 2


@pytest.mark.django_db
def test_a_formula_try_in_the_preview_is_graded_in_the_sandbox_without_a_second_pool():
    from tests.security.sandbox_jobs import formula_graded_here

    preview = authoring.build_preview(authoring.starter_source("formula"), 3, {"flops": "m n"})
    assert preview.parts[0].tried.status == "incorrect"
    assert sandbox.run_limited(formula_graded_here, 30) == ("incorrect", False)
