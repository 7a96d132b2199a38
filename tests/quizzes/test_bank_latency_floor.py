"""`inference/max-batch-under-latency` (ledger G-1, bank-recheck-5 S5-9): every floor its
solution shows gives the count beside it, in the template's own latency line and in the shared
`explain("max_batch_under_latency")` step, and a count from the rounded 33.3 ms target is named.

Seeds 5, 6, 15, 25, 34 showed "⌊320⌋ = 319" and "⌊min(320, 971.3)⌋" before: a quotient just
under 320 printed to four figures.  Seeds 9, 15, 22, 53, 56 give one sequence less from "33.3 ms"
than from 1/30 s, and were graded with the generic message."""

from __future__ import annotations

import math
import re

from content.physics import max_batch_under_latency
from quizzes.engine import render_solution

from .test_bank_review_findings import feedback, variants

SLUG = "max-batch-under-latency"
_SHOWN_FLOOR = re.compile(r"\\lfloor ([\d.,{}]+) \\rfloor\$?\s*=\s*\**([\d,]+)")
_SHOWN_MIN = re.compile(
    r"\\lfloor \\min\(([\d.,{}]+), ([\d.,{}]+)\) \\rfloor\$? \| ([\d,]+) sequences"
)


def _value(tex: str) -> float:
    return float(tex.replace("{,}", "").replace(",", ""))


def test_g1_every_latency_floor_gives_its_count():
    t, vs = variants(SLUG, [5, 6, 15, 25, 34, *range(12)])
    for v in vs:
        text = render_solution(t, v).replace("\n", " ")
        shown, mins = _SHOWN_FLOOR.findall(text), _SHOWN_MIN.findall(text)
        assert len(shown) >= 2 and len(mins) == 1, v.seed
        for quotient, count in shown:
            assert math.floor(_value(quotient)) == int(count.replace(",", "")), v.seed
        (memory, compute, count), key = mins[0], v.answers["latency"]
        assert math.floor(min(_value(memory), _value(compute))) == int(count) == key, v.seed


def test_s5_9_a_count_from_the_rounded_target_is_named():
    t, vs = variants(SLUG, [9, 15, 22, 53, 56, *range(12)])
    fired = 0
    for v in vs:
        p = v.params
        rounded = max_batch_under_latency(
            p["m"], p["acc"], "bf16", p["context"], round(p["target"], 4)
        )
        error = v.common_errors["latency"].get("rounded-twice")
        if rounded != v.answers["latency"]:
            assert error == rounded == v.answers["latency"] - 1, v.seed
            fired += 1
            assert "s exactly: 33.3 ms is rounded" in feedback(t, v, "latency", "rounded-twice")
        else:
            assert error is None, v.seed
    assert fired >= 5
