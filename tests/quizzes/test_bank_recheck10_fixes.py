"""The tenth re-check's findings (`docs/reviews/bank-recheck-10.md`, ledger section S10): each
test fails on the template (or the drawer) before its fix."""

from __future__ import annotations

import math

from content.physics import embedding_params
from quizzes.engine import render_prompt, render_solution
from quizzes.engine.grade import grade_part
from quizzes.engine.render import render_figure, render_part
from quizzes.presenters.figures import figure_html

from .test_bank_review_findings import variants


def flat(text):
    return " ".join(text.split())


def test_s10_1_the_input_table_left_out_is_named_not_taken_for_gib():
    t, vs = variants("decode-intensity-batch-one", range(60))
    llama3 = [v for v in vs if v.params["m"].key == "llama-3-8b"]
    assert llama3
    for v in llama3:
        m, dt = v.params["m"], v.params["dt"]
        without = v.answers["moved"] - embedding_params(m) * {"fp16": 2, "int8": 1, "int4": 0.5}[dt]
        grade = grade_part(t, v, "moved", f"{without:.6g} B")
        assert grade.diagnosis == "embedding-table", (v.seed, grade.diagnosis)


def test_s10_2_the_bandwidth_choice_asks_at_the_roofline_rates():
    t, vs = variants("roofline-read-two-kernels", [8, 42])
    prompt = flat(render_part(t, vs[0], "faster_hbm").prompt)
    assert "At the rates the roofline allows, which kernels run faster" in prompt
    for v in vs:
        assert "at the rates the roofline allows, every kernel" in flat(render_solution(t, v))


def test_s10_3_the_matmul_never_sits_on_the_ridge_dot():
    _, vs = variants("roofline-read-two-kernels", range(60))
    for v in vs:
        assert abs(math.log(v.params["mm_i"] / v.params["ridge"])) > 0.3, v.seed


def test_s10_4_points_drawn_alike_are_diamonds_not_the_legends_circle():
    t, vs = variants("roofline-read-two-kernels", [0])
    html = str(figure_html(render_figure(t, vs[0])))
    points = html.split('class="points"')[1]
    assert points.count("rotate(45") == 2 and "<circle" not in points


def test_s10_6_the_time_part_names_the_wrong_leg():
    t, vs = variants("roofline-read-two-kernels", range(20))
    for v in vs:
        p = v.params
        if p["mm_i"] < p["ridge"]:
            wrong, code = p["mm_flops"] / p["acc"].peak("bf16"), "peak-for-attainable"
        else:
            wrong = p["mm_flops"] / p["mm_i"] / p["acc"].memory_bandwidth
            code = "memory-vs-compute-bound"
        assert grade_part(t, v, "time", f"{wrong:.6g} s").diagnosis == code, v.seed


def test_s10_7_the_forecast_floor_counts_the_whole_checkpoint():
    t, vs = variants("intro-forecast-from-fractions", [3])
    assert "the whole checkpoint, the input embedding table included" in flat(
        render_part(t, vs[0], "floor").prompt
    )


def test_s10_8_the_two_tables_are_both_named():
    t, vs = variants("decode-intensity-batch-one", range(12))
    quantized = [v for v in vs if v.params["dt"] != "fp16"]
    assert quantized
    for v in quantized:
        assert "keep the input embedding and the output head in 16 bits" in flat(
            render_prompt(t, v)
        )
