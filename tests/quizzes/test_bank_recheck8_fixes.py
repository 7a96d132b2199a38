"""The eighth re-check's findings (`docs/reviews/bank-recheck-8.md`, ledger section S8): each
test fails on the template before its fix."""

from __future__ import annotations

from pathlib import Path

from quizzes.engine import render_solution

from .test_bank_review_findings import feedback, variants


def flat(text):
    return " ".join(text.split())


def test_s8_1_one_thing_is_called_the_forecast():
    # Part 2 (floor ÷ the streaming fraction) is the time at the sustained bandwidth; "the
    # forecast" is chapter 00's one forecast, which the prompt gives and the claim is judged by.
    t, vs = variants("intro-forecast-from-fractions", [3, 17, 42])
    source = next(
        Path("content/questions").glob("*/intro-forecast-from-fractions.yaml")
    ).read_text()
    for v in vs:
        solution = flat(render_solution(t, v))
        assert "so the forecast is" not in solution
        assert "at the bandwidth a kernel sustains a pass takes" in solution
    assert "Forecast = floor" not in source


def test_s8_2_the_batch_is_its_own_intensity_to_four_figures():
    t, vs = variants("decode-step-on-the-roofline", range(60))
    seen = 0
    for v in vs:
        if v.params["b"] == 1024:
            seen += 1
            solution = flat(render_solution(t, v))
            assert "sit at 1,024 FLOP/byte, the batch size, 1,024" in solution
            assert "1020 FLOP/byte" not in solution
    assert seen


def test_s8_3_fp16_weights_are_not_said_to_be_widened_to_bf16():
    t, vs = variants("decode-intensity-batch-one", range(20))
    fp16 = [v for v in vs if v.params["dt"] == "fp16"]
    assert fp16
    for v in fp16:
        text = flat(feedback(t, v, "moved", "wrong-dtype-bytes"))
        assert "bf16 arithmetic happens after" not in text
        assert "memory moves them at that size" in text


def test_s8_4_one_step_for_the_whole_answer_is_steps_forgotten():
    t, _ = variants("prefill-versus-decode", [3])
    codes = [s.code for s in t.part("decode").settings.common_errors]
    assert "steps-forgotten" in codes and "batch-ignored" not in codes
