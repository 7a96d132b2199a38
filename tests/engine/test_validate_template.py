"""validate_template: each check fails when its promise is broken, and names the seed."""

from __future__ import annotations

import math

from quizzes.engine import generate_variant, parse_template, validate_template

from .samples import NUMERIC


def checks(report) -> set[str]:
    return {failure.check for failure in report.failures}


def test_sound_template_passes_with_statistics(numeric_template):
    report = validate_template(numeric_template, seeds=60)
    assert report.ok, [str(f) for f in report.failures]
    assert report.variants == 60 and report.distinct_variants == 12
    stats = report.parts["t"]
    assert stats.minimum < stats.maximum
    assert sum(count for _, _, count in stats.histogram) == 60
    assert math.isclose(stats.common_error_ratios["bits-for-bytes"], 8.0)
    assert report.summary().startswith("bandwidth-time: 12 distinct variants")


def test_answer_outside_plausible_range_fails_with_a_reproducing_seed():
    template = parse_template(
        NUMERIC.replace("plausible: [1.0e-4, 1.0]", "plausible: [1.0e-4, 0.005]"), source="p.yaml"
    )
    report = validate_template(template, seeds=40)
    failure = next(f for f in report.failures if f.check == "plausible")
    assert failure.part == "t" and failure.count > 1
    assert generate_variant(template, failure.seed).answers["t"] > 0.005


def test_common_error_equal_to_the_answer_is_ambiguous():
    text = NUMERIC.replace(
        'value: "8 * w / acc.memory_bandwidth"', 'value: "w / acc.memory_bandwidth"'
    )
    report = validate_template(parse_template(text, source="c.yaml"), seeds=10)
    assert "common-error" in checks(report)


def test_common_error_that_is_none_is_skipped_for_that_variant():
    text = NUMERIC.replace(
        'value: "8 * w / acc.memory_bandwidth"',
        'value: "w / acc.memory_bandwidth if size > 100 else None"',
    )
    template = parse_template(text, source="c.yaml")
    assert generate_variant(template, 1).common_errors["t"] == {}
    assert validate_template(template, seeds=20).ok


def test_too_few_distinct_variants_fails():
    text = NUMERIC.replace("min_variants: 3", "min_variants: 13")
    report = validate_template(parse_template(text, source="v.yaml"), seeds=80)
    [failure] = report.failures
    assert failure.check == "variants" and "12 distinct" in failure.message


def test_non_finite_answer_fails():
    text = NUMERIC.replace('"w / acc.memory_bandwidth"', '"1.0e308 * 10 if size > 30 else 0.01"', 1)
    report = validate_template(parse_template(text, source="n.yaml"), seeds=40)
    assert "answer" in checks(report)


def test_expression_error_during_generation_is_a_failure_with_its_line():
    text = NUMERIC.replace('"w / acc.memory_bandwidth"', '"w / (size - 20)"', 1)
    report = validate_template(parse_template(text, source="e.yaml"), seeds=40)
    failure = next(f for f in report.failures if f.check == "expression")
    assert "division by zero" in failure.message and "e.yaml, line" in failure.message


def test_unbalanced_outcomes_fail():
    text = (
        NUMERIC + 'outcomes:\n  category: \'"big" if size > 10 else "small"\'\n  min_share: 0.3\n'
    )
    report = validate_template(parse_template(text, source="o.yaml"), seeds=100)
    assert report.outcomes["small"] < 0.3
    assert "outcomes" in checks(report)


def test_expected_outcome_that_never_occurs_fails():
    text = NUMERIC + "outcomes:\n  category: '\"one\"'\n  expect: [one, two]\n"
    report = validate_template(parse_template(text, source="o.yaml"), seeds=20)
    assert report.outcomes == {"one": 1.0, "two": 0.0}
    assert "outcomes" in checks(report)


def test_answer_the_grader_rejects_is_a_grading_failure():
    text = NUMERIC.replace("    unit: s\n", "    unit: s\n    sigfigs: 2\n", 1)
    template = parse_template(text, source="g.yaml")

    def strict(kind, **kwargs):
        from quizzes.grading import Grade

        return Grade("incorrect", 0.0, "nope")

    report = validate_template(template, seeds=5, grade_fn=strict)
    failure = next(f for f in report.failures if f.check == "grading")
    assert "grades incorrect" in failure.message


def test_both_spellings_of_the_answer_are_graded(numeric_template):
    seen = []

    def spy(kind, **kwargs):
        from quizzes.grading import grade_numeric

        seen.append(kwargs["response"])
        return grade_numeric(**kwargs)

    validate_template(numeric_template, seeds=1, grade_fn=spy)
    units = {response.split()[-1] for response in seen}
    assert {"ms", "µs"} <= units or {"ms", "s"} <= units


SECOND_ERROR = """\
      - code: prefix-slip
        value: "{value}"
        feedback: Check the prefix.
  - id: rate
"""


def with_second_error(value: str) -> str:
    return NUMERIC.replace("  - id: rate\n", SECOND_ERROR.format(value=value), 1)


def test_two_common_errors_that_coincide_in_a_variant_are_ambiguous():
    # In variants with size 20 the prefix slip gives the same time as reading bits as bytes.
    text = with_second_error(
        "8 * w / acc.memory_bandwidth if size == 20 else 1000 * w / acc.memory_bandwidth"
    )
    template = parse_template(text, source="two.yaml")
    report = validate_template(template, seeds=40)
    failure = next(f for f in report.failures if f.check == "common-error")
    assert failure.part == "t"
    assert "'bits-for-bytes'" in failure.message and "'prefix-slip'" in failure.message
    assert generate_variant(template, failure.seed).params["size"] == 20


def test_two_common_errors_within_the_parts_rtol_are_ambiguous():
    # 0.5% apart, inside the default 1% tolerance: one answer would match both slips.
    report = validate_template(
        parse_template(with_second_error("8.04 * w / acc.memory_bandwidth"), source="r.yaml"),
        seeds=10,
    )
    assert "common-error" in checks(report)


def test_common_errors_kept_apart_by_none_validate():
    text = with_second_error("1000 * w / acc.memory_bandwidth if size != 20 else None")
    assert validate_template(parse_template(text, source="apart.yaml"), seeds=40).ok


def test_a_variant_drawn_again_counts_its_failures_for_every_seed():
    text = NUMERIC.replace(
        'value: "8 * w / acc.memory_bandwidth"', 'value: "w / acc.memory_bandwidth"'
    )
    report = validate_template(parse_template(text, source="c.yaml"), seeds=60)
    [failure] = [f for f in report.failures if f.check == "common-error"]
    assert report.distinct_variants == 12 and failure.count == 60


def test_each_distinct_variant_is_graded_once(numeric_template):
    calls = []

    def spy(kind, **kwargs):
        from quizzes.grading import grade_numeric

        calls.append(kwargs["expected"])
        return grade_numeric(**kwargs)

    report = validate_template(numeric_template, seeds=60, grade_fn=spy)
    assert report.ok and report.variants == 60
    # two spellings of two numeric parts, for each of the 12 distinct variants
    assert len(calls) == 2 * 2 * report.distinct_variants


def test_feedback_that_fails_to_render_is_a_failure_not_a_crash():
    text = NUMERIC.replace(
        "feedback: You read bits as bytes.", "feedback: You read {{ 1 / (size - 20) }} bits."
    )
    report = validate_template(parse_template(text, source="f.yaml"), seeds=40)
    failure = next(f for f in report.failures if f.check == "expression")
    assert "division by zero" in failure.message
    assert (
        generate_variant(parse_template(text, source="f.yaml"), failure.seed).params["size"] == 20
    )
