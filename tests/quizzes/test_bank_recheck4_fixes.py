"""The fourth re-check (bank-rc4: docs/reviews/bank-recheck-4.md, ledger section S4): each test
names its finding and fails on the template (or the shared worked step) as it was before the
fix.  S4-1 and S4-2 are guarded in ``test_bank_recheck3_fixes.py``."""

from __future__ import annotations

import math
import re

from content.physics import checkpoint_bytes, format_number, format_quantity, min_gpus
from quizzes.engine import render_solution
from quizzes.engine.render import render_hints

from .test_bank_recheck3_fixes import flat, whole
from .test_bank_review_findings import variants

SIXTY = range(60)

# The last row of the shared "Largest batch ... that fits" table: the division in whole bytes,
# the quotient it gives, and the count the row states.
_DIVISION = re.compile(
    r"\\frac\{([\d{},]+)\\ \\text\{B\} - ([\d{},]+)\\ \\text\{B\}\}\{([\d{},]+)\\ \\text\{B\}\}"
    r" \\right\\rfloor = \\lfloor ([\d{},.]+) \\rfloor\$ \| ([\d,]+) sequences"
)


def _number(tex):
    return tex.replace("{,}", "").replace(",", "")


def divisions(text):
    """(M, W, c, the quotient shown, the count stated) of each fit row of a solution."""
    return [
        (int(_number(m)), int(_number(w)), int(_number(c)), float(_number(q)), int(_number(n)))
        for m, w, c, q, n in _DIVISION.findall(text)
    ]


def _check_division(row, key, room, weights, seed):
    m, w, c, quotient, count = row
    assert count == key, seed
    # the floor of the quotient the row shows is the count it states (seed 1: 312.0 beside 311)
    assert math.floor(quotient) == count, (seed, quotient, count)
    # ... and it is the quotient of the whole byte counts it prints, which are the prompt's
    assert math.floor((m - w) / c) == count and (m - w) * 100 // c == round(quotient * 100), seed
    assert (m, w) == (room, weights), seed


def test_s4_3_the_fp8_solution_divides_the_whole_bytes_it_prints():
    # seeds 27 (fp8 row: "(259.8 GB − 138 GB) / 167.8 MB" = 725.86 beside 726), 33, 50
    t, vs = variants("kv-cache-fp8-conversations", [27, 33, 50, *SIXTY])
    for v in vs:
        text = flat(t, v)
        room = whole(r"may use ([\d,]+) B", text)
        weights = whole(r"\(([\d,]+) B of bf16 weights", text)
        rows = divisions(render_solution(t, v))
        assert len(rows) == 2, v.seed  # the bf16 cache, then the fp8 cache
        _check_division(rows[0], v.answers["bf16"], room, weights, v.seed)
        _check_division(rows[1], v.answers["fp8"], room, weights, v.seed)


def test_s4_3_the_gqa_solution_divides_the_whole_bytes_it_prints():
    # seeds 1 ("⌊(182 GB − 14.48 GB) / 536.9 MB⌋ | 311", which gives 312.0), 14, 44
    t, vs = variants("gqa-conversations-fit", [1, 14, 44, *SIXTY])
    for v in vs:
        text = flat(t, v)
        room = whole(r"may use ([\d,]+) B", text)
        weights = whole(r"([\d,]+) B of bf16 weights", text)
        (row,) = divisions(render_solution(t, v))
        _check_division(row, v.answers["fit"], room, weights, v.seed)


def test_s4_3_the_weights_alone_too_large_show_no_quotient():
    from content.physics import explain

    # Llama-3-70B in bf16 (141 GB) does not fit on one H100: no floor of a negative quotient
    last = explain("max_batch_for_memory", "llama-3-70b", "H100", "bf16", 4096).steps[-1]
    assert last.result == "0 (the weights alone do not fit)"
    assert "\\lfloor -" not in last.substituted and "= \\lfloor" not in last.substituted


def _launch_words(v, text):
    p = v.params
    share = p["launch"] / p["mm_time"]
    if share >= 1:
        assert "more than the floor itself" in text, v.seed
        return "above"
    percent = f"{format_number(100 * share, 2)}% of this floor"
    assert percent in text, (v.seed, percent)
    fills = p["tiles"] >= p["acc"].sm_count
    assert ("cannot fill the GPU's" in text) == (not fills), v.seed
    if share < 0.1:
        assert "small beside it" in text and "not small" not in text, v.seed
        return "small"
    assert "small beside" not in text and "not small at this size" in text, v.seed
    return "comparable"


def test_s4_4_the_launch_is_called_small_only_when_it_is():
    # seeds 20, 29, 43, 49, 57 (A100, n = 1024) and 0, 38 (B200, n = 2048): "small beside this
    # floor" for a launch of 38% and 35% of it
    t, vs = variants("roofline-read-two-kernels", [20, 0, *SIXTY])
    kinds = [_launch_words(v, render_solution(t, v).replace("\n", " ")) for v in vs]
    assert kinds[:2] == ["comparable", "comparable"]
    assert {"above", "small", "comparable"} <= set(kinds)


def _next_split(count):
    # a power of two within one 8-GPU server, whole servers beyond it (S6-9)
    return 2 ** math.ceil(math.log2(count)) if count <= 8 else 8 * math.ceil(count / 8)


def test_s4_5_an_odd_gpu_count_names_the_count_a_server_would_round_up_to():
    # seeds 3, 17: "so it would round up to one", where "one" read as the digit 1
    t, vs = variants("intro-weights-how-many-gpus", [3, 17, *range(30)])
    odd = {v.seed for v in vs if v.answers["gpus"] not in (1, 2, 4, 8)}
    assert odd
    for v in vs:
        text = render_solution(t, v).replace("\n", " ")
        assert "round up to one" not in text, v.seed
        if v.seed in odd:
            split = _next_split(v.answers["gpus"])
            assert v.params["m"].n_heads % min(split, 8) == 0, v.seed
            assert f"round up, here to {split}" in text, v.seed


def test_s4_5_block_format_names_both_counts_rounded_up():
    t, vs = variants("block-format-size", [17, *range(30)])
    seen = 0
    for v in vs:
        text = render_solution(t, v).replace("\n", " ")
        assert "round up to one" not in text, v.seed
        counts = (
            min_gpus(v.answers["w"], v.params["acc"]),
            min_gpus(v.params["m"].params * 2, v.params["acc"]),
        )
        splits = [_next_split(c) for c in counts]
        if splits == list(counts):
            continue
        seen += 1
        assert all(v.params["m"].n_heads % min(s, 8) == 0 for s in splits), v.seed
        assert f"round each up, here to {splits[0]} and {splits[1]}." in text, v.seed
    assert seen


def test_s4_5_the_gqa_hint_works_from_the_total_the_prompt_prints():
    # seed 17: the prompt gives the budget "in all" for 4 GPUs; the hint asked for 4 × one GPU's
    t, vs = variants("gqa-conversations-fit", [17, 0, 1])
    assert any(v.params["n"] > 1 for v in vs)
    for v in vs:
        hints = " ".join(render_hints(t, v, 1))
        assert "on one GPU" not in hints and "may use in all − weights" in hints, v.seed
        assert "in all" in flat(t, v), v.seed


def test_s4_5_the_fp8_checkpoint_size_is_named_as_the_whole_checkpoint():
    # seed 42: "(an fp8 checkpoint keeps its embedding and head tables in 16 bits: 72.7 GB)"
    t, vs = variants("kv-cache-fp8-conversations", [42, 3, 17])
    for v in vs:
        text = render_solution(t, v).replace("\n", " ")
        # four figures since S6-8, as the prompt's sizes
        size = format_quantity(checkpoint_bytes(v.params["m"], "fp8"), "B", sig=4)
        assert f"tables in 16 bits: {size}" not in text, v.seed
        assert f"the fp8 checkpoint takes {size} in all" in text, v.seed


# -- bank-g's own sweep of the shown floors (ledger S4, "G-1") -------------------------------

_SHOWN_FLOOR = re.compile(r"\\lfloor ([\d.,]+) \\rfloor\$?\s*=\s*\**([\d,]+)")


def test_g1_every_floor_shown_in_a_solution_gives_the_count_beside_it():
    # a quotient shown to four figures rounded up to the next whole number: paged seeds 38
    # ("⌊193⌋ = 192") and 41 ("⌊207⌋ = 206"), decode-upgrade-choice seed 27 ("⌊219⌋ = 218")
    for slug, seeds in (
        ("paged-kv-reservation", [38, 41, *range(20)]),
        ("decode-upgrade-choice", [27, *range(20)]),
    ):
        t, vs = variants(slug, seeds)
        for v in vs:
            shown = _SHOWN_FLOOR.findall(render_solution(t, v).replace("\n", " "))
            assert shown, (slug, v.seed)
            for quotient, count in shown:
                assert math.floor(float(quotient.replace(",", ""))) == int(count), (slug, v.seed)


def test_g1_the_paged_solution_divides_the_whole_bytes_the_prompt_prints():
    t, vs = variants("paged-kv-reservation", [41, 3])
    for v in vs:
        text = flat(t, v)
        cap, weights = whole(r"may use ([\d,]+) B", text), whole(r"weights take ([\d,]+) B", text)
        assert f"= {cap - weights:,} B" in render_solution(t, v), v.seed
