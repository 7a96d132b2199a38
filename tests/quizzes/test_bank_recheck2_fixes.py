"""The second re-check (bank-rc2: /work/reviews/bank-recheck-2.md, ledger section S2): each
test names its finding and fails on the template as it was before the fix."""

from __future__ import annotations

import math
import re

from content.physics import kv_cache_bytes, weights_bytes
from quizzes.engine import render_prompt, render_solution

from .test_bank_recheck_fixes import budget, option_feedback
from .test_bank_review_findings import template, variants
from .test_bank_third_review import option_diagnosis


def test_s2_1_a_decode_step_is_never_drawn_past_the_ridge():
    # seeds 283, 698, ... drew Llama-3-8B decoding 512 sequences on an H200: compute-bound, while
    # the texts say decode stays memory-bound
    _, vs = variants("prefill-or-decode-bound", [283, 698, 966, 1130, 1881, 2268, 2388, 2594])
    for v in vs:
        p = v.params
        assert p["phase"] == "prefill" or p["intensity"] < p["ridge"], v.seed


def test_s2_2_a_cheap_doubling_never_claims_well_over_half():
    t, vs = variants("batch-doubling-what-breaks", [17, 37, 53, *range(12)])
    cheap = [v for v in vs if v.params["verdict"] == "cheap"]
    assert cheap
    for v in cheap:
        assert 2 / v.params["growth"] > 4 / 3, v.seed  # more than a third, as the texts say
        assert "well over half" not in render_solution(t, v)
    option = next(o for o in t.part("outcome").settings.options if o.id == "cheap")
    assert "more than a third" in option.text.text


def test_s2_3_only_a_less_precise_pick_records_wrong_bytes():
    # a pick more precise than the key may come from leaving the cache out: no single code
    t = template("gpus-by-precision")
    for option in ("fp32", "bf16", "int8"):
        assert option_diagnosis(t, "format", option) is None
    assert option_diagnosis(t, "format", "int4") == "wrong-dtype-bytes"


def test_s2_4_the_roofline_code_sits_only_where_the_job_is_compute_or_bandwidth():
    t, vs = variants("intro-which-number-limits", range(20))
    for v in vs:
        assert v.params["kinds"][v.params["k1"]] in ("compute", "bandwidth"), v.seed
    for option in ("compute", "bandwidth"):
        assert option_diagnosis(t, "first", option) == "memory-vs-compute-bound"
        # job 2 records it too, but only where job 2 is a roofline job (S5-5)
        second = next(o for o in t.part("second").settings.options if o.id == option)
        assert second.diagnosis_when.text == 'kinds[k2] != "capacity"'
    assert {v.params["kinds"][v.params["k2"]] for v in vs} >= {"capacity", "compute"}


def test_s2_5_a_split_count_holds_with_the_reserve_of_the_split():
    # seeds 23, 39: Llama-3.1-405B bf16 on A100s keyed 13 (14 with the TP-2 reserve); 48: 6
    # MI300Xs (7)
    _, vs = variants("gpus-for-weights-and-kv", [23, 39, 48, *range(10)])
    for v in vs:
        p = v.params
        need, acc = p["w"] + p["kv"], p["acc"]
        expected = 1 if need <= budget(acc, 1) else math.ceil(need / budget(acc, 2))
        assert v.answers["gpus"] == expected, v.seed


def test_s2_6_the_block_format_count_uses_the_split_budget():
    # seed 10: 405B in MXFP4 on H100s, 215.6 GB: 3 GPUs at one GPU's budget, 4 with the split's
    t, (v,) = variants("block-format-size", [10])
    w, acc = v.answers["w"], v.params["acc"]
    expected = 1 if w <= budget(acc, 1) else math.ceil(w / budget(acc, 2))
    assert f"that is {expected} GPU" in render_solution(t, v)


def test_s2_8_no_prompt_says_to_ignore_what_the_budget_already_set_aside():
    for slug in ("decode-upgrade-choice", "gpus-by-precision", "max-batch-under-latency"):
        t, vs = variants(slug, range(3))
        for v in vs:
            assert "ignore activations" not in render_prompt(t, v).replace("\n", " "), slug


def test_s2_9_int4_arithmetic_is_not_denied_to_the_a100():
    t, (v,) = variants("intro-order-token-floors", [0])
    assert "int4 on any of them" not in render_prompt(t, v)


def test_s2_10_real_checkpoints_can_be_a_third_larger():
    # the caveat stays; since S5-2 it quotes its computed example instead of "up to a third"
    t, vs = variants("checkpoint-size-estimate", range(3))
    for v in vs:
        text = " ".join(render_solution(t, v).split())
        assert "Real 8- and 4-bit checkpoints come out larger" in text, v.seed


def test_s2_11_the_batch_adds_the_other_sequences_caches():
    t, vs = variants("intro-explain-batching-and-cost", range(4))
    for v in vs:
        p = v.params
        others = kv_cache_bytes(p["m"], p["ctx"], "bf16", batch=p["b"] - 1)
        model, *items = v.answers["why"]
        text = model + " ".join(item for _, item, _ in items)
        assert f"{others / 1e9:.3g} GB" in text, v.seed
        assert "only a little longer" not in t.part("why").prompt.text


def test_s2_17_worked_tables_say_runtime_not_cuda_and_no_90_percent_label():
    for slug, seed in (("gpus-for-weights-and-kv", 17), ("gqa-conversations-fit", 3)):
        t, (v,) = variants(slug, [seed])
        solution = render_solution(t, v)
        assert "(90%)" not in solution and "CUDA runtime reports" not in solution, slug


def test_s2_18_the_int8_feedback_says_more_than_and_one_gpu_is_not_split():
    t, vs = variants("gpus-by-precision", range(30))
    for v in vs:
        p = v.params
        if p["best"] == "int4":
            assert "more than the" in option_feedback(t, v)["int8"], v.seed
        if p["n"] == 1:
            prompt = render_prompt(t, v)
            assert "split evenly" not in prompt and " each (" not in prompt, v.seed


def test_s2_13_an_fp32_key_says_fp32_buys_nothing_for_bf16_weights():
    t, vs = variants("gpus-by-precision", range(30))
    fp32 = [v for v in vs if v.params["best"] == "fp32"]
    assert fp32
    for v in fp32:
        assert "fp32 buys nothing" in render_solution(t, v)


def test_s2_16_a_share_just_under_all_is_not_printed_as_100_percent():
    t, (v,) = variants("roofline-place-a-matmul", [3])
    solution = " ".join(render_solution(t, v).split())
    shares = re.findall(r"are (\d+(?:\.\d+)?)% of it", solution)
    assert shares and all(s != "100" for s in shares), shares


def test_s2_12_more_memory_gives_at_least_its_share_of_budget():
    t, (v,) = variants("decode-upgrade-choice", [0])
    assert "at least 1.5× the server's budget" in render_solution(t, v)


def test_weights_fill_the_counted_budget_in_gpus_for_weights_and_kv():
    # the knife-edge guard divides by the budget the count uses (one GPU's, or a split's)
    _, vs = variants("gpus-for-weights-and-kv", range(20))
    for v in vs:
        p = v.params
        need = weights_bytes(p["m"], p["dt"]) + p["kv"]
        per = budget(p["acc"], 1) if need <= budget(p["acc"], 1) else budget(p["acc"], 2)
        assert abs(need / per - round(need / per)) > 0.04, v.seed
