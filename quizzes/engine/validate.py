"""``validate_template``: generate many variants and check every promise a template makes.

Each failure carries the seed that reproduces it, so an author can open exactly that variant.
The report also holds what an authoring page shows: distinct variants, the range and histogram
of each numeric answer, the balance of outcomes and how far each common error lies from the
right answer.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from content.expressions import ExpressionError
from quizzes.engine import kinds
from quizzes.engine.errors import GenerationError, OverBudget
from quizzes.engine.kinds.numeric import numeric_kwargs
from quizzes.engine.model import WHOLE_QUESTION, Part, Template
from quizzes.engine.namespace import names_for
from quizzes.engine.plausible import broken_checks
from quizzes.engine.render import (
    render_hints,
    render_parts,
    render_prompt,
    render_solution,
    render_text,
)
from quizzes.engine.units import alternative_unit
from quizzes.engine.variants import Variant, generate_variant

HISTOGRAM_BINS = 10


@dataclass(frozen=True)
class ValidationFailure:
    """One broken promise: which check, what happened, the first seed that shows it, how often."""

    check: str
    message: str
    seed: int | None = None
    part: str | None = None
    count: int = 1

    def __str__(self) -> str:
        where = f" (part {self.part})" if self.part else ""
        seed = f" [seed {self.seed}" + (f", {self.count} seeds" if self.count > 1 else "") + "]"
        return f"{self.check}{where}: {self.message}" + (seed if self.seed is not None else "")


@dataclass(frozen=True)
class PartStats:
    """Answer statistics of one numeric part over the validation seeds."""

    unit: str | None
    minimum: float
    maximum: float
    histogram: tuple[tuple[float, float, int], ...]
    common_error_ratios: dict[str, float] = field(default_factory=dict)


@dataclass
class ValidationReport:
    """The result of ``validate_template``; ``ok`` when there are no failures."""

    slug: str
    source: str
    seeds: int
    variants: int = 0
    distinct_variants: int = 0
    failures: list[ValidationFailure] = field(default_factory=list)
    parts: dict[str, PartStats] = field(default_factory=dict)
    outcomes: dict[str, float] = field(default_factory=dict)
    # Set when the wall-clock budget ran out: how many seeds were checked.
    stopped_after: int | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        """One line: slug, distinct variants, answer ranges, outcome balance, verdict."""
        pieces = [f"{self.slug}: {self.distinct_variants} distinct variants"]
        for part_id, stats in self.parts.items():
            unit = f" {stats.unit}" if stats.unit else ""
            pieces.append(f"{part_id} in [{stats.minimum:.3g}, {stats.maximum:.3g}]{unit}")
        if self.outcomes:
            balance = " / ".join(f"{k} {v:.0%}" for k, v in sorted(self.outcomes.items()))
            pieces.append(f"outcomes {balance}")
        verdict = "ok" if self.ok else f"{len(self.failures)} failures"
        return ", ".join(pieces) + f": {verdict}"


class _Collector:
    """Failures folded by (check, part, message), keeping the first seed and a count."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str | None, str], list] = {}
        self.recording: list[tuple] | None = None

    def add(
        self,
        check: str,
        message: str,
        seed: int | None,
        part: str | None = None,
        *,
        fold: str | None = None,
    ) -> None:
        """Record a failure; failures with the same check, part and ``fold`` key are counted
        together (``fold`` defaults to the message), keeping the first seed and message."""
        if self.recording is not None:
            self.recording.append((check, message, part, fold))
        key = (check, part, message if fold is None else fold)
        if key in self.found:
            self.found[key][2] += 1
        else:
            self.found[key] = [message, seed, 1]

    def record(self) -> list[tuple]:
        """Start remembering every failure added, so they can be replayed for another seed."""
        self.recording = []
        return self.recording

    def stop(self) -> None:
        self.recording = None

    def replay(self, recorded: list[tuple], seed: int) -> None:
        """Add again, for ``seed``, the failures recorded while checking an identical variant."""
        for check, message, part, fold in recorded:
            self.add(check, message, seed, part, fold=fold)

    def failures(self) -> list[ValidationFailure]:
        return [
            ValidationFailure(check, message, seed, part, count)
            for (check, part, _), (message, seed, count) in self.found.items()
        ]


def validate_template(
    template: Template,
    seeds: int = 200,
    *,
    grade_fn: Callable[..., Any] | None = None,
    budget_s: float | None = None,
) -> ValidationReport:
    """Generate variants for seeds ``0 .. seeds-1`` and apply every check of the format doc.

    With ``budget_s``, the run stops once that many seconds have passed: the report says how
    many seeds were checked (``stopped_after``) and carries a "budget" failure, so a run that
    was cut short is never mistaken for a clean one.
    """
    grade_fn = grade_fn or kinds.run_grader
    report = ValidationReport(template.slug, template.source, seeds)
    failures = _Collector()
    keys: set[str] = set()
    answers: dict[str, list[float]] = {
        p.id: [] for p in template.parts if kinds.kind_for(p).numeric_answer
    }
    ratios: dict[str, dict[str, list[float]]] = {p: {} for p in answers}
    outcomes: Counter[str] = Counter()
    formulas = _FormulaChecks(grade_fn, failures)
    checked: dict[str, list[tuple]] = {}
    deadline = None if budget_s is None else time.monotonic() + budget_s
    _check_hint_parts(template, failures)
    for seed in range(seeds):
        try:
            if deadline is not None and time.monotonic() > deadline:
                raise OverBudget("")
            variant = _generate(template, seed, failures, deadline)
        except OverBudget:
            report.stopped_after = seed
            failures.add("budget", _stopped(seed, seeds, budget_s), None)
            break
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
            _check_variant(template, variant, seed, failures, grade_fn, formulas)
            failures.stop()
            if key is not None:
                checked[key] = recorded
        if variant.outcome is not None:
            outcomes[variant.outcome] += 1
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
    report.parts = _part_stats(template, answers, ratios)
    report.failures = failures.failures()
    return report


def _check_hint_parts(template: Template, failures: _Collector) -> None:
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


def _check_variant(template, variant: Variant, seed: int, failures, grade_fn, formulas) -> None:
    _check_rendering(template, variant, seed, failures)
    _check_plausibility(template, variant, seed, failures)
    checks = Checks(template, failures, grade_fn, formulas)
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


def _generate(template: Template, seed: int, failures: _Collector, deadline=None):
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
        lambda: _render_feedback(template, variant),
    )
    for step in steps:
        try:
            step()
        except ExpressionError as exc:
            failures.add("expression", str(exc), seed)


def _render_feedback(template: Template, variant: Variant) -> None:
    for part in template.parts:
        names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
        for spec in part.common_errors:
            render_text(template, spec.feedback, names)
        for option in part.options:
            render_text(template, option.feedback, names_for(variant.params))


class _FormulaChecks:
    """Each formula part's answer graded against itself, once per distinct answer text.

    The grade of a formula depends only on its text and variables, so variants that share an
    answer share one grading call.  A part whose answer the grader could not check (it raised,
    or ran out of time or memory in the pool) is not graded again on later seeds: a hostile
    formula costs one time limit, not one per seed.
    """

    def __init__(self, grade_fn, failures: _Collector) -> None:
        self.grade_fn = grade_fn
        self.failures = failures
        self.graded: dict[tuple[str, str], bool] = {}
        self.unchecked: set[str] = set()

    def check(self, part: Part, answer: str, seed: int) -> None:
        if part.id in self.unchecked or (part.id, answer) in self.graded:
            return
        grade = _grade(
            self.grade_fn,
            self.failures,
            seed,
            part,
            kinds.kind_for(part).grader,
            response=answer,
            expected=answer,
            variables=dict(part.variables),
        )
        self.graded[part.id, answer] = grade is not None and grade.status == "correct"
        if grade is None or grade.status == "invalid":
            self.unchecked.add(part.id)
        if grade is not None and grade.status != "correct":
            from quizzes.grading.formula.grade import check_expected

            # the grader tells a student only that the question is at fault; the author
            # gets the reason
            detail = check_expected(answer, dict(part.variables)) or grade.feedback
            self.failures.add(
                "grading",
                f"the answer {answer!r} does not grade as correct: {detail}",
                seed,
                part.id,
            )


@dataclass
class Checks:
    """Validation's toolbox, handed to each kind's ``validate``: the failures collected so far,
    the grader runner, the formula checks shared across seeds and the checks of a number."""

    template: Template
    failures: _Collector
    grade_fn: Callable[..., Any]
    formulas: _FormulaChecks

    def finite_and_plausible(self, part: Part, answer: float, seed: int) -> bool:
        """Report an answer that is not finite or outside the part's ``plausible``; False
        when it is not finite (nothing else can be checked)."""
        return _finite_and_plausible(part, answer, seed, self.failures)

    def numeric_part(self, part: Part, variant: Variant, seed: int) -> None:
        _check_part(self.template, part, variant, seed, self.failures, self.grade_fn)


def _finite_and_plausible(part: Part, answer: float, seed: int, failures) -> bool:
    if not math.isfinite(answer):
        failures.add("answer", f"the answer is not finite ({answer})", seed, part.id)
        return False
    low, high = part.plausible or (-math.inf, math.inf)
    if not low <= answer <= high:
        failures.add(
            "plausible",
            f"answer {answer:.4g} is outside plausible [{low:.4g}, {high:.4g}]",
            seed,
            part.id,
            fold="plausible",
        )
    return True


def _check_part(template, part: Part, variant, seed, failures, grade_fn) -> None:
    answer = variant.answers[part.id]
    if not _finite_and_plausible(part, answer, seed, failures):
        return
    _check_own_answer(grade_fn, failures, seed, part, variant, template)
    errors = variant.common_errors.get(part.id, {})
    for code, value in errors.items():
        if _coincides(part, code, value, answer):
            failures.add(
                "common-error",
                f"'{code}' gives {value:.4g}, which the grader cannot "
                f"tell from the answer {answer:.4g}",
                seed,
                part.id,
                fold=code,
            )
    _check_errors_apart(part, errors, seed, failures)


def _check_errors_apart(part: Part, errors: dict[str, float], seed, failures) -> None:
    """Two slips whose values coincide cannot both be diagnosed: the grader names the first."""
    codes = list(errors)
    for i, first in enumerate(codes):
        for second in codes[i + 1 :]:
            if _errors_coincide(part, first, errors[first], second, errors[second]):
                failures.add(
                    "common-error",
                    f"'{first}' gives {errors[first]:.4g} and '{second}' gives "
                    f"{errors[second]:.4g}, which the grader cannot tell apart; make one of "
                    "them None in such variants",
                    seed,
                    part.id,
                    fold=f"{first}|{second}",
                )


def _error_rtol(part: Part, code: str) -> float:
    spec = next(s for s in part.common_errors if s.code == code)
    return spec.rtol if spec.rtol is not None else part.rtol


def _errors_coincide(part: Part, first: str, a: float, second: str, b: float) -> bool:
    rtol = max(_error_rtol(part, first), _error_rtol(part, second))
    return abs(a - b) <= max(rtol * max(abs(a), abs(b)), part.atol)


def _check_own_answer(grade_fn, failures, seed, part, variant, template) -> None:
    """The correct answer, in each of its spellings, must grade as correct."""
    answer = variant.answers[part.id]
    names = names_for(variant.params, {u: variant.answers[u] for u in part.uses})
    try:
        # The common errors' feedback is rendered once for all the spellings.
        kwargs = numeric_kwargs(
            template, part, "", answer, names, variant.common_errors.get(part.id, {})
        )
    except ExpressionError:
        return  # the feedback that failed to render is reported by _check_rendering
    for text in answer_spellings(part, answer):
        grader = kinds.kind_for(part).grader
        grade = _grade(grade_fn, failures, seed, part, grader, **{**kwargs, "response": text})
        if grade is not None and grade.status != "correct":
            failures.add(
                "grading",
                f"its own answer written {text!r} grades {grade.status}: {grade.feedback}",
                seed,
                part.id,
                fold=f"own-answer {grade.status} {grade.diagnosis}",
            )


def _grade(grade_fn, failures, seed, part, kind, **kwargs):
    try:
        return grade_fn(kind, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a grader crash is a validation failure to report
        failures.add("grading", f"the grader raised {type(exc).__name__}: {exc}", seed, part.id)
        return None


def answer_spellings(part: Part, answer: float) -> list[str]:
    """The correct answer written canonically and, where possible, in another unit."""
    from content.physics.formatting import format_number, format_quantity

    if part.decimals is not None:
        return [f"{answer:.{part.decimals}f}" + (f" {part.unit}" if part.unit else "")]
    sig = part.sigfigs or max(3, math.ceil(-math.log10(part.rtol)) + 1 if part.rtol > 0 else 12)
    sig = min(sig, 15)
    if not part.unit:
        return [format_number(answer, sig), f"{answer:.{sig - 1}e}"]
    if part.unit in ("USD", "$"):
        # Prices print in whole cents, which can be coarser than the tolerance: use figures.
        return [f"${format_number(answer, sig)}", f"{format_number(answer, sig)} USD"]
    canonical = format_quantity(answer, part.unit, sig=sig)
    spellings = [canonical]
    shown_unit = canonical.partition(" ")[2]
    alternative = alternative_unit(part.unit, answer, avoid=shown_unit)
    if alternative is not None:
        unit, value = alternative
        spellings.append(f"{format_number(value, sig)} {unit}")
    return spellings


def _coincides(part: Part, code: str, value: float, answer: float) -> bool:
    rtol = _error_rtol(part, code)
    if abs(value - answer) <= max(rtol * abs(answer), part.atol):
        return True
    if part.factor and value != 0 and answer != 0 and (value > 0) == (answer > 0):
        return max(value / answer, answer / value) <= part.factor
    return False


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


def _part_stats(template: Template, answers, ratios) -> dict[str, PartStats]:
    stats = {}
    for part in template.parts:
        values = answers.get(part.id)
        if not values:
            continue
        stats[part.id] = PartStats(
            unit=part.unit,
            minimum=min(values),
            maximum=max(values),
            histogram=histogram(values),
            common_error_ratios={
                code: statistics.median(found) for code, found in ratios[part.id].items()
            },
        )
    return stats


def histogram(values: list[float], bins: int = HISTOGRAM_BINS):
    """(low, high, count) per bin; log-spaced when positive values span more than 100×."""
    low, high = min(values), max(values)
    if low == high:
        return ((low, high, len(values)),)
    logarithmic = low > 0 and high / low > 100
    if logarithmic:
        edges = [
            math.exp(math.log(low) + (math.log(high) - math.log(low)) * i / bins)
            for i in range(bins + 1)
        ]
    else:
        edges = [low + (high - low) * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for value in values:
        index = next((i for i in range(bins) if value < edges[i + 1]), bins - 1)
        counts[index] += 1
    return tuple((edges[i], edges[i + 1], counts[i]) for i in range(bins))
