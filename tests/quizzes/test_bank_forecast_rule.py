"""`intro-forecast-from-fractions` judges a vendor's claim against the book's one forecast
(chapter 00: `decode_forecast_time`, the recipe times its measured error), not against a fixed
"two thirds of the floor's rate" that gpt-fast measured on one A100 and that the chapter no
longer states as a rule. On the H100 that forecast is 75-76% of the floor's rate, so a claim
at 75% of it is "in line with the forecast", which the old fixed rule called "excellent"."""

from __future__ import annotations

from content.physics import decode_forecast_time
from quizzes.engine import render_prompt, render_solution

from .test_bank_review_findings import variants

SLUG = "intro-forecast-from-fractions"


def test_the_claim_is_judged_against_the_books_forecast():
    _, vs = variants(SLUG, range(60))
    for v in vs:
        p = v.params
        forecast_rate = 1 / decode_forecast_time(p["m"], p["acc"], "bf16", 1, 0)
        floor_rate = 1 / p["t_floor"]
        expected = (
            "impossible"
            if p["claim"] > floor_rate
            else ("excellent" if p["claim"] > forecast_rate else "typical")
        )
        assert v.answers["claim"] == (expected,), (v.seed, p["claim"], forecast_rate)
        # no claim sits within 10% of the forecast, where a rounded figure would flip the key
        assert abs(p["claim"] / forecast_rate - 1) > 0.10, (v.seed, p["claim"], forecast_rate)


def test_no_text_teaches_the_retired_two_thirds_rule():
    t, vs = variants(SLUG, [3, 17, 42])
    for v in vs:
        text = " ".join((render_prompt(t, v) + render_solution(t, v)).split())
        assert "two thirds" not in text
        assert f"{1 / v.params['t_fc']:.0f}" in text.replace(",", "")
