"""``validate_template``: generate many variants and check every promise a template makes.

Each failure carries the seed that reproduces it, so an author can open exactly that variant.
A variant is checked whole here (its text renders, its ``plausible`` checks hold) and part by
part by its kind, through ``checks.Checks``; a variant drawn again is not checked again.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from content.expressions import ExpressionError
from quizzes.engine import kinds
from quizzes.engine.errors import GenerationError, OverBudget
from quizzes.engine.figures import draw_figure, figure_leaks
from quizzes.engine.model import WHOLE_QUESTION, Template
from quizzes.engine.plausible import broken_checks, missing_checks
from quizzes.engine.render import (
    render_feedback,
    render_hints,
    render_parts,
    render_prompt,
    render_solution,
)
from quizzes.engine.validate.checks import Checks
from quizzes.engine.validate.extremes import (
    VARIANT_BUDGET_S,
    check_extremes,
    cpu_seconds,
    over_budget,
)
from quizzes.engine.validate.report import Collector, ValidationReport, part_stats
from quizzes.engine.variants import Variant, generate_variant


def validate_template(
    template: Template,
    seeds: int = 200,
    *,
    grade_fn: Callable[..., Any] | None = None,
    budget_s: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    extremes: bool = False,
    variant_budget_s: float = VARIANT_BUDGET_S,
) -> ValidationReport:
    """Generate variants for seeds ``0 .. seeds-1`` and apply every check of the format doc.

    With ``budget_s``, the run stops once that many seconds have passed: the report says how
    many seeds were checked (``stopped_after``) and carries a "budget" failure, so a run that
    was cut short is never mistaken for a clean one. With ``extremes`` (the publication gate),
    the parameters' extremes are drawn first (``extremes.check_extremes``). A draw that takes
    more than ``variant_budget_s`` is a "cost" failure: a student's start would spend as much.
    ``progress(done, seeds)`` is called before each seed (`progress.ProgressFile` reports
    across processes); it may raise to stop the run.
    """
    grade_fn = grade_fn or kinds.run_grader
    report = ValidationReport(template.slug, template.source, seeds)
    failures = Collector()
    keys: set[str] = set()
    scales = {p.id: scale for p in template.parts if (scale := kinds.kind_for(p).number_scale(p))}
    answers: dict[str, list[float]] = {part_id: [] for part_id in scales}
    ratios: dict[str, dict[str, list[float]]] = {p: {} for p in answers}
    outcomes: Counter[str] = Counter()
    checks = Checks(template, failures, grade_fn)
    checked: dict[str, list[tuple]] = {}
    deadline = None if budget_s is None else time.monotonic() + budget_s
    _check_hint_parts(template, failures)
    _check_coverage(template, failures)
    if extremes:
        try:
            check_extremes(template, failures, deadline=deadline, budget_s=variant_budget_s)
        except OverBudget:
            report.stopped_after = 0
            failures.add("budget", _stopped(0, seeds, budget_s), None)
            report.failures = failures.failures()
            return report
    for seed in range(seeds):
        if progress is not None:
            progress(seed, seeds)
        try:
            if deadline is not None and time.monotonic() > deadline:
                raise OverBudget("")
            started = time.process_time()
            variant = _generate(template, seed, failures, deadline)
            spent = time.process_time() - started
            if spent > variant_budget_s:
                # Judged again once, warm: a first draw may pay for a cold cache.
                spent = min(spent, cpu_seconds(_generate, template, seed, Collector()))
        except OverBudget:
            report.stopped_after = seed
            failures.add("budget", _stopped(seed, seeds, budget_s), None)
            break
        if spent > variant_budget_s:
            failures.add("cost", over_budget(f"seed {seed}", spent, variant_budget_s), seed)
        if variant is None:
            continue
        report.variants += 1
        try:
            key = variant.key()
        except ValueError as exc:
            failures.add("storage", str(exc), seed)
            key = None
        else:
            keys.add(key)
        _collect_answers(template, variant, answers, ratios)
        # Every check depends only on the variant's parameters (answers, common errors and text
        # are computed from them), so a variant drawn again is not checked again: its failures
        # are counted for this seed too.
        if key is not None and key in checked:
            failures.replay(checked[key], seed)
        else:
            recorded = failures.record()
            _check_variant(template, variant, seed, checks)
            failures.stop()
            if key is not None:
                checked[key] = recorded
        if variant.outcome is not None:
            outcomes[variant.outcome] += 1
    if progress is not None and report.stopped_after is None:
        progress(seeds, seeds)
    report.distinct_variants = len(keys)
    if report.stopped_after is not None:
        # Counts over part of the seeds would be misleading: report only what was checked.
        report.failures = failures.failures()
        return report
    if report.variants and report.distinct_variants < template.min_variants:
        failures.add(
            "variants",
            f"{report.distinct_variants} distinct variants over {seeds} seeds, fewer than "
            f"min_variants {template.min_variants}",
            None,
        )
    _check_outcomes(template, outcomes, report, failures)
    _check_fixed_keys(template, checks.keys, failures)
    report.parts = part_stats(template, answers, ratios, scales)
    report.failures = failures.failures()
    return report


def _check_hint_parts(template: Template, failures: Collector) -> None:
    """With several parts, every hint says which part it helps with (or `part: all`): an
    unscoped hint shows after a wrong try at any part, so a hint about one part would appear
    beside a wrong answer to another."""
    if len(template.parts) < 2:
        return
    for number, hint in enumerate(template.hints, start=1):
        if not hint.part_named:
            failures.add(
                "hints",
                f"hint {number} names no part; with several parts, say which one it helps "
                f"with (`part: <id>`), or `part: {WHOLE_QUESTION}` for a hint about every part",
                None,
            )


def _check_coverage(template: Template, failures: Collector) -> None:
    """The plausibility checks the template's parameters call for are declared (no seed: the
    rule reads the template, not a variant)."""
    for problem in missing_checks(template):
        failures.add("plausible coverage", f"{template.source}: {problem}", None)


# A part whose options carry the same key in more than this share of the variants teaches one
# fact, not a judgement: a student who saw one variant knows the key of every other. The keys
# are counted by the kinds whose answer is a choice among the author's ids: choice, ordering
# (the sequence) and matching (the pairs) (`Checks.count_key`). No template is exempt: the
# ordering kind's starter and documentation example order transfers by time, which varies.
FIXED_KEY_SHARE = 0.9


def _check_fixed_keys(
    template: Template, option_keys: dict[str, Counter], failures: Collector
) -> None:
    for part_id, counter in option_keys.items():
        total = sum(counter.values())
        if not total:
            continue
        key, count = counter.most_common(1)[0]
        if count / total > FIXED_KEY_SHARE:
            failures.add(
                "fixed-key",
                f"rule fixed-key: the key is {{{key}}} in {count} of {total} variants "
                f"({count / total:.0%}, more than {FIXED_KEY_SHARE:.0%}); vary the situation so "
                "that another option is right in more variants, or ask for a number instead",
                None,
                part_id,
            )


def _check_variant(template, variant: Variant, seed: int, checks: Checks) -> None:
    _check_rendering(template, variant, seed, checks.failures)
    _check_figure(template, variant, seed, checks.failures)
    _check_plausibility(template, variant, seed, checks.failures)
    for part in template.parts:
        kinds.kind_for(part).validate(checks, part, variant, seed)


def _collect_answers(template: Template, variant: Variant, answers, ratios) -> None:
    """Answer and common-error statistics count every seed, repeated variants included."""
    for part in template.parts:
        if part.id not in answers or not math.isfinite(variant.answers[part.id]):
            continue
        answer = variant.answers[part.id]
        answers[part.id].append(answer)
        for code, value in variant.common_errors.get(part.id, {}).items():
            if answer != 0:
                ratios[part.id].setdefault(code, []).append(value / answer)


def _stopped(seed: int, seeds: int, budget_s: float | None) -> str:
    return (
        f"stopped after {seed:,} of {seeds:,} seeds: the time budget of {budget_s:g} s ran out; "
        "validate fewer seeds, or make the template cheaper to draw (fewer constraint rejections)"
    )


def _generate(template: Template, seed: int, failures: Collector, deadline=None):
    """The variant of ``seed``, or None with its failure recorded; ``OverBudget`` passes up."""
    try:
        # Nothing is stored, and every text is rendered below anyway.
        return generate_variant(template, seed, record_texts=False, deadline=deadline)
    except OverBudget:
        raise
    except ExpressionError as exc:
        failures.add("expression", str(exc), seed)
    except GenerationError as exc:
        failures.add("constraints", str(exc), seed)
    return None


def _check_plausibility(template: Template, variant: Variant, seed: int, failures) -> None:
    """Every declared ``plausible`` check, judged on this variant's parameters."""
    try:
        broken = broken_checks(template, variant.params)
    except ExpressionError as exc:
        failures.add("expression", str(exc), seed)
        return
    for check, message in broken:
        where = f"{template.source}, line {check.line}"
        failures.add(f"plausible {check.check}", f"{where}: {message}", seed, fold=where)


def _check_rendering(template: Template, variant: Variant, seed: int, failures) -> None:
    most_tries = max((hint.after for hint in template.hints), default=0)
    steps = (
        lambda: render_prompt(template, variant),
        lambda: render_parts(template, variant),
        lambda: render_hints(template, variant, most_tries),
        lambda: render_solution(template, variant),
        lambda: render_feedback(template, variant),
    )
    for step in steps:
        try:
            step()
        except ExpressionError as exc:
            failures.add("expression", str(exc), seed)


def _check_figure(template: Template, variant: Variant, seed: int, failures) -> None:
    """The figure draws (every value a finite number in range, every label short enough) and
    shows no key (``figures.leaks``)."""
    if template.figure is None:
        return
    try:
        drawn = draw_figure(template, variant)
    except ExpressionError as exc:
        failures.add("expression", str(exc), seed)
        return
    where = f"{template.source}, line {template.figure.line}"
    for message in figure_leaks(template, variant, drawn):
        failures.add("figure-leak", f"{where}: {message}", seed, fold=where)


def _check_outcomes(template, outcomes: Counter, report: ValidationReport, failures) -> None:
    if template.outcomes is None or not report.variants:
        return
    total = sum(outcomes.values())
    categories = set(outcomes) | set(template.outcomes.expect)
    report.outcomes = {c: outcomes.get(c, 0) / total for c in sorted(categories)}
    for category, share in report.outcomes.items():
        if share < template.outcomes.min_share:
            failures.add(
                "outcomes",
                f"category {category!r} is {share:.0%} of variants, below min_share "
                f"{template.outcomes.min_share:.0%}",
                None,
            )
