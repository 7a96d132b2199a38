"""The ninth re-check's findings (`docs/reviews/bank-recheck-9.md`, ledger section S9): each
test fails on the template (or the drawer) before its fix."""

from __future__ import annotations

import math

from courseware.charts import roofline_chart_html, roofline_of
from quizzes.engine import render_prompt, render_solution
from quizzes.engine.grade import grade_part
from quizzes.engine.render import render_figure
from quizzes.presenters.figures import figure_html

from .test_bank_review_findings import feedback, variants


def flat(text):
    return " ".join(text.split())


def test_s9_1_no_claim_called_possible_is_faster_than_streaming_allows():
    # A claim keyed "possible" must be slower than the streaming benchmark's rate (floor ÷ eff),
    # which the solution calls what the sustained bandwidth allows: k = 0.95 was above it on
    # every GPU, 0.85 within 1% of it on the A100.
    t, vs = variants("intro-forecast-from-fractions", range(60))
    for v in vs:
        k, eff = v.params["k"], v.params["eff"]
        if k <= 1:
            assert k < 0.95 * eff, (v.seed, k, eff)
    solution = flat(render_solution(t, vs[15]))
    assert "the best a server could do" not in solution
    assert "what the sustained bandwidth allows before any kernel overhead" in solution


def test_s9_2_the_two_kernels_figure_does_not_name_the_bound_the_choice_asks():
    t, vs = variants("roofline-read-two-kernels", [0, 8])
    for v in vs:
        html = str(figure_html(render_figure(t, v)))
        assert "roofline" in html
        assert "-bound" not in html


def test_s9_2_bounds_false_draws_points_alike_and_unnamed():
    points = [("a", 1.0, 3.35e12), ("b", 900.0, 989e12)]
    chart = roofline_of("H100", "bf16", 989e12, 3.35e12, points)
    named = str(roofline_chart_html(chart, compact=True))
    plain = str(roofline_chart_html(chart, compact=True, bounds=False))
    assert "memory-bound" in named and "compute-bound" in named
    assert "-bound" not in plain
    assert "rotate(45" in plain and "rotate(45" not in named


def test_s9_3_quantized_checkpoints_are_said_to_be_counted_wholly_at_that_size():
    t, vs = variants("decode-intensity-batch-one", range(12))
    quantized = [v for v in vs if v.params["dt"] != "fp16"]
    assert quantized
    for v in quantized:
        assert "keep the input embedding and the output head in 16 bits" in flat(
            render_prompt(t, v)
        )
        assert "every model stored wholly in" in flat(render_solution(t, v))


def test_s9_4_the_ridge_corner_is_never_within_tolerance_of_the_step():
    t, vs = variants("decode-step-on-the-roofline", range(60))
    tolerance = t.part("point").settings.tolerance
    for v in vs:
        intensity = v.params["flops"] / (v.params["w"] + v.params["kv"])
        assert abs(math.log(intensity / v.params["ridge"])) > math.log(tolerance), v.seed


def test_s9_5_decode_read_at_four_bytes_a_weight_is_a_dtype_slip():
    t, vs = variants("prefill-versus-decode", [3, 17])
    for v in vs:
        grade = grade_part(t, v, "decode", f"{2 * v.answers['decode']:.6g} s")
        assert grade.diagnosis == "wrong-dtype-bytes"


def test_s9_6_the_fp16_feedback_names_the_four_byte_slip():
    t, vs = variants("decode-intensity-batch-one", range(20))
    fp16 = [v for v in vs if v.params["dt"] == "fp16"]
    assert fp16
    for v in fp16:
        assert "That is 4 B per parameter, fp32's size" in flat(
            feedback(t, v, "moved", "wrong-dtype-bytes")
        )
