"""The student review of the second edition's new templates (ledger ids S-F1 ...): each test
fails on the template as it was before its fix.  A few seeds each, including the review's own.
"""

from __future__ import annotations

import math
import re

import pytest

from content.physics import pipeline_bubble_fraction
from quizzes.engine import render_prompt, render_solution

from .test_bank_review_findings import feedback, template, variants


def test_s_f1_moe_expert_work_is_per_gpu_and_the_verdict_follows_it():
    _, vs = variants("moe-alltoall-time", [1, 3, 6, 7, 10, 11])
    for v in vs:
        m, acc = v.params["m"], v.params["acc"]
        # each GPU's experts: 2 token-expert pairs per token it holds, 3 d x ffn matrices, 2 FLOP
        flops = v.params["tokens"] * 2 * 3 * m.d_model * m.ffn_dim * 2
        assert v.params["compute"] == pytest.approx(flops / acc.peak(v.params["edt"]))
        expected = "compute" if v.params["comm"] < v.params["compute"] else "wire"
        assert v.answers["verdict"] == (expected,)


def test_s_f1b_the_fewest_micro_batches_meets_the_target_exactly_when_it_can():
    _, vs = variants("pipeline-bubble", [4, 21, 22, 26, 1, 2])
    for v in vs:
        p, target, need = v.params["p"], v.params["target"], int(v.answers["need"])
        assert pipeline_bubble_fraction(p, need) <= target + 1e-12
        assert pipeline_bubble_fraction(p, need - 1) > target + 1e-12


def test_s_f3_a_network_joins_servers_not_the_eight_gpus_of_one():
    _, vs = variants("fsdp-allgather-traffic", range(2, 14))
    for v in vs:
        assert (v.params["where"] == "network") == (v.params["n"] >= 16)


def test_s_f4_doubling_a_rounded_count_falls_short_and_says_so():
    t, vs = variants("kv-cache-fp8-conversations", [1, 2, 3, 4])
    fired = [v for v in vs if v.common_errors["fp8"].get("rounded-twice") is not None]
    assert fired
    for v in fired:
        assert v.common_errors["fp8"]["rounded-twice"] < v.answers["fp8"]
        assert "fall one short" in feedback(t, v, "fp8", "rounded-twice")


def test_s_f5_f6_the_two_jobs_differ_and_no_cache_outgrows_its_window():
    t, vs = variants("intro-which-number-limits", range(12))
    for v in vs:
        kinds, k1, k2 = v.params["kinds"], v.params["k1"], v.params["k2"]
        assert kinds[k1] != kinds[k2]
    assert all("Mistral" not in job for job in vs[0].params["jobs"])


def test_s_f7_each_wrong_reason_gets_its_own_feedback():
    t = template("intro-generation-speedup")
    why = next(p for p in t.parts if p.id == "why")
    texts = [o.feedback.text for o in why.settings.options]
    assert len(set(texts)) == len(texts)
    assert "below the old ridge" in render_solution(
        t, variants("intro-generation-speedup", [1])[1][0]
    )


def test_s_f8_the_interleaved_schedule_is_the_one_that_shrinks_the_bubble():
    t, (v,) = variants("pipeline-bubble", [1])
    text = render_solution(t, v)
    assert "interleaved schedules (1F1B) cut the activation memory, not the bubble" not in text
    assert "interleaved 1F1B schedule" in text


def test_s_f9_the_crossover_context_is_one_the_model_can_hold():
    _, vs = variants("decode-kv-reads-share", [4, 13, 22, 60, 1, 2])
    for v in vs:
        m = v.params["m"]
        window = 4096 if m.key == "mistral-7b" else m.context_length
        assert v.answers["crossover"] <= window


@pytest.mark.parametrize(
    ("slug", "part", "code"),
    [
        ("speculative-decoding-speedup", "tokens", "linear-expectation"),
        ("speculative-decoding-speedup", "tokens", "all-accepted"),
        ("pipeline-bubble", "bubble", "idle-over-useful"),
        ("fsdp-allgather-traffic", "step", "pass-forgotten"),
        ("tp-decode-allreduce-latency", "comm", "pass-forgotten"),
        ("moe-alltoall-time", "comm", "pass-forgotten"),
        ("moe-alltoall-time", "sent", "experts-per-token"),
        ("quant-outlier-scale", "step_tensor", "outlier-ignored"),
        ("kv-cache-fp8-conversations", "fp8", "rounded-twice"),
        ("gpus-warp-divergence", "cycles", "paths-overlapped"),
        ("gpus-occupancy-latency-hiding", "have", "threads-per-warp"),
    ],
)
def test_s_f10_each_slip_is_filed_under_the_code_that_names_it(slug, part, code):
    codes = {s.code for p in template(slug).parts if p.id == part for s in p.settings.common_errors}
    assert code in codes
    assert not codes & {"weights-only"} or slug == "roofline-rereads"


def test_s_f11_the_two_loss_scale_bounds_print_apart():
    t, vs = variants("fp16-loss-scaling", [1, 2, 3])
    for v in vs:
        logs = re.findall(r"\\log_2\([^)]*\) = ([\d.]+)", render_solution(t, v))
        assert len(logs) == 2
        lo, hi = (float(x) for x in logs)
        assert math.ceil(lo) == v.answers["s_min"] and math.floor(hi) == v.answers["s_max"]


@pytest.mark.parametrize(
    ("slug", "seed", "absent", "present"),
    [
        ("quant-outlier-scale", 1, "This is why LLM.int8() keeps outlier features", "activations"),
        ("gpus-peak-from-clock", 3, "a boost clock of", "peaks assume a clock of"),
        ("roofline-attention-intensity", 1, "keeps the scores on chip: it", "assume, ideally"),
        ("roofline-fusion-epilogue", 2, None, "ignore the cost of launching a kernel"),
        ("tp-degree-choice", 5, "links (", "slow software stack"),
    ],
)
def test_s_f12_to_f23_idealisations_and_figures_are_stated(slug, seed, absent, present):
    t, (v,) = variants(slug, [seed])
    text = render_prompt(t, v) + render_solution(t, v)
    assert present in text
    if absent:
        assert absent not in text


def test_s_f15_the_batch_clause_appears_only_when_the_batch_is_bigger():
    t, vs = variants("cost-across-gpus", [1, 3])
    for v in vs:
        text = render_solution(t, v)
        if v.params["bb"] <= v.params["ba"]:
            assert "bigger batch" not in text


def test_s_f17_a_speed_up_near_four_is_not_called_well_short():
    t, vs = variants("weight-only-speedup-at-batch", [4, 1, 2, 3])
    for v in vs:
        if v.answers["speedup"] > 3:
            assert "well short" not in render_solution(t, v)
