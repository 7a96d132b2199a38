"""The independent review of the newer templates (reviews/bank-new-templates.md; ledger ids
B-P1 ...): each test fails on the template as it was before its fix.  The review's own seeds
where they still draw what it saw, else the first 60; no grading pool.
"""

from __future__ import annotations

from content.physics import kv_cache_bytes_per_token, serving_batch_cap, weights_bytes
from quizzes.engine import render_part, render_prompt, render_solution
from quizzes.engine.plausible import broken_checks, missing_checks

from .test_bank_review_findings import template, variants
from .test_bank_third_review import option_diagnosis

SEEDS = range(60)


# -- implausible variants ----------------------------------------------------------------------


def test_b_p1_paged_conversations_stay_within_a_default_servers_sequence_cap():
    # seed 24 drew 2,068 Llama-3-8B conversations on an MI300X; seed 9 374 on an A100
    t, vs = variants("paged-kv-reservation", SEEDS)
    for v in vs:
        p = v.params
        assert p["paged"] <= serving_batch_cap(p["acc"]), (v.seed, p["paged"], p["acc"].name)
        assert not broken_checks(t, p), v.seed


def test_b_p4_speculative_batches_stay_within_the_a100s_cap():
    # seeds 2, 25, 32, 53, 55 drew b = 384 or 512 on an A100 (vLLM schedules 256 there)
    t, vs = variants("speculative-at-batch", SEEDS)
    for v in vs:
        assert v.params["b"] <= serving_batch_cap(v.params["acc"]), v.seed
        assert not broken_checks(t, v.params), v.seed


def test_a_decode_batch_of_prefill_or_decode_bound_stays_within_the_serving_cap():
    # the whole bank at 1000 seeds: seed 546 (and four others) drew 512 sequences on an A100
    t, vs = variants("prefill-or-decode-bound", [546, *SEEDS])
    for v in vs:
        p = v.params
        if p["phase"] == "decode":
            assert p["tokens"] <= serving_batch_cap(p["acc"]), (v.seed, p["tokens"])
        assert not broken_checks(t, p), v.seed


def test_b_p2_data_parallel_training_state_fits_the_gpus_the_link_joins():
    t, vs = variants("allreduce-estimate", SEEDS)
    assert not missing_checks(t)
    for v in vs:
        p = v.params
        n, params = p["n"], p["m"].params
        # ZeRO-2: bf16 weights whole, gradients and fp32 optimizer state sharded
        per_gpu = (2 + 14 / n) * params
        assert per_gpu <= p["acc"].memory_bytes, (v.seed, p["m"].name, n, p["acc"].name)
        assert not broken_checks(t, p), v.seed
        prompt = render_prompt(t, v)
        assert "ZeRO stage 2" in prompt and p["acc"].name in prompt
    # seed 42 drew Llama-3-70B on 8 GPUs of an NVLink 4 server (141 GB per GPU, even sharded)
    assert not [
        v for v in vs if v.params["m"].key == "llama-3-70b" and v.params["acc"].key == "h100-sxm"
    ]


def test_b_s5_the_rounding_advice_keeps_two_figures_of_the_parameters():
    t, vs = variants("allreduce-estimate", range(6))
    thirteen = [v for v in vs if v.params["m"].key == "llama-2-13b"] or vs
    for v in thirteen:
        billions = f"{v.params['m'].params / 1e9:.2g}"  # 13, where one figure said 10
        assert f"\n{billions} billion × 2 bytes" in render_solution(t, v)


# -- misleading explanations -------------------------------------------------------------------


def test_b_m1_the_chunked_prefill_steps_read_the_running_caches():
    # seed 59: Llama-2-7B on an A100 at b = 64 read 34 GB of caches beside 13.5 GB of weights,
    # which the template ignored; a plain decode step then missed the 20 ms target
    t, vs = variants("chunked-prefill-stall", SEEDS)
    for v in vs:
        p = v.params
        caches = kv_cache_bytes_per_token(p["m"], "bf16") * p["b"] * 1024
        read = (weights_bytes(p["m"], "bf16") + caches) / p["acc"].memory_bandwidth
        assert p["t_read"] == read, v.seed
        assert p["t_chunk"] >= read and p["t256"] <= p["target"], v.seed
        assert "Ignore the KV cache" not in render_prompt(t, v)


# -- untrue diagnosis codes --------------------------------------------------------------------


def test_b_d1_one_chunks_step_for_the_whole_prefill_is_steps_forgotten():
    part = template("chunked-prefill-stall").part("ttft")
    assert [e.code for e in part.settings.common_errors] == ["steps-forgotten"]


def test_b_d2_experts_counted_as_distinct_is_not_a_speculative_decoding_slip():
    part = template("moe-bytes-at-batch").part("touched")
    codes = [e.code for e in part.settings.common_errors]
    assert "linear-expectation" not in codes and "distinct-experts-assumed" in codes


def test_b_d3_choosing_e5m2_for_a_tensor_that_fits_e4m3_is_not_another_formats_range():
    # a wrong E5M2 pick is the role rule ("gradients go in E5M2") or caution, not a range
    # taken from the other format; no code is truer than a wrong one
    t = template("fp8-format-by-use")
    assert option_diagnosis(t, "format", "e5m2") is None
    assert option_diagnosis(t, "format", "e4m3") == "wrong-format-range"


def test_r3_a_wrong_yes_on_int4_records_no_slip_that_would_have_said_no():
    # the recheck (docs/reviews/bank-recheck-2026-12-06.md, R-3): 1 B per parameter makes the
    # weights larger, so it can only lead to "No"; a wrong "Yes" has no single cause
    t = template("intro-weights-how-many-gpus")
    assert option_diagnosis(t, "int4_one", "fits") is None


def test_r7_a_batch_of_one_is_never_called_1_tokens():
    # the recheck's seeds 15, 25, 30 ... drew b = 1: "missed by all 1 tokens", "1 tokens call"
    from quizzes.engine import render_hints
    from quizzes.engine.render import names_for, render_text

    t, vs = variants("moe-bytes-at-batch", SEEDS)
    ones = [v for v in vs if v.params["b"] == 1]
    assert ones
    for v in ones:
        names = names_for(v.params, v.answers)
        with v.replaying():
            feedback = [
                render_text(t, o.feedback, names)
                for part in t.parts
                for o in getattr(part.settings, "options", None) or ()
                if o.feedback
            ]
        assert len(feedback) == 2  # both options of `closer`
        texts = [render_solution(t, v), *render_hints(t, v, 9), *feedback]
        assert not [x for x in texts if "1 tokens" in x], v.seed


def test_r10_a_budget_that_sets_activations_aside_is_not_followed_by_ignore_them():
    for slug in ("kv-cache-fp8-conversations", "gqa-conversations-fit", "paged-kv-reservation"):
        t, vs = variants(slug, range(3))
        for v in vs:
            prompt = render_prompt(t, v)
            assert "less the activations and buffers it sets aside" in prompt, slug
            assert "Ignore activations" not in prompt, (slug, v.seed)


def test_r6_the_verdict_says_closer_to_the_active_parameters_not_close_to_them():
    # seed 17 read 7.39x the active parameters and the verdict said "close to" them
    t, vs = variants("moe-bytes-at-batch", SEEDS)
    for v in vs:
        solution = render_solution(t, v)
        assert "close to the active parameters" not in solution.replace("closer to", ""), v.seed


# -- the written explanations (third round, and a reading of all six) -------------------------


def explain_texts(t, v):
    """The model answer and the rubric items of a variant's explain part, as one text."""
    model, *items = v.answers["why"]
    return model + "\n" + "\n".join(text for _, text, _ in items)


def test_b_m9_tp_latency_says_the_ring_is_plain_and_teaches_what_lets_8_gpus_pay():
    t, vs = variants("interconnect-explain-tp-latency", range(8))
    for v in vs:
        p = v.params
        assert p["t8"] > p["t4"] and p["t8_one"] < p["t4_one"], v.seed
        assert "plain ring" in render_prompt(t, v)
        texts = explain_texts(t, v)
        assert "one-shot" in texts and "8 GPUs beat 4" in texts
        assert f"{p['t8_one'] * 1e3:.3g} ms" in render_solution(t, v)


def test_b_s16_a_batch_wait_is_a_little_longer_not_almost_as_long():
    # at b = 64 the step is up to 1.58x the single user's
    t, vs = variants("intro-explain-batching-and-cost", range(6))
    for v in vs:
        part = render_part(t, v, "why").prompt
        # S2-11: the ratio printed ("waits only 1.3× as long"), not "a little longer" at 1.58×
        assert "almost as long" not in part and "× as long for their next token" in part


def test_explain_texts_read_as_written():
    # an expert's reading of the six (ledger B-X1..X3): "A 8192", "1x faster", "the same memory"
    # for the same bandwidth, bandwidth "moving the kernel up the slope", batching that "stops"
    t, vs = variants("precision-explain-weight-only-fades", range(4))
    for v in vs:
        prompt = render_prompt(t, v)
        assert prompt.startswith("An 8,192") and "1× faster" not in prompt
    t, vs = variants("roofline-explain-which-lever", range(2))
    assert "the same memory bandwidth" in render_prompt(t, vs[0])
    assert "steeper slope" in explain_texts(t, vs[0])
    t, vs = variants("inference-explain-batch-and-caches", range(2))
    assert "stops paying" not in explain_texts(t, vs[0]) + t.title


# -- style points ------------------------------------------------------------------------------


def test_b_s1_flops_per_byte_is_not_uses_of_a_byte():
    t, vs = variants("gpus-estimate-bytes-per-clock", range(2))
    solution = render_solution(t, vs[0])
    assert "reuse each byte that many times" not in solution
    assert "that many FLOPs for each byte it loads" in solution


def test_b_s2_a_cache_without_grouping_is_not_1x_too_large():
    t, vs = variants("kv-cache-estimate", range(12))
    for v in vs:
        solution = render_solution(t, v)
        assert "1× too large" not in solution
        if v.params["m"].n_kv_heads == v.params["m"].n_heads:
            assert "the two counts agree" in solution


def test_b_s3_the_bytes_carry_the_students_own_expert_count_forward():
    part = template("moe-bytes-at-batch").part("bytes")
    assert "part_touched" in part.settings.answer.text and part.uses == ("touched",)


def test_b_s4_the_active_option_says_closer_to_like_the_other():
    t = template("moe-bytes-at-batch")
    texts = [o.text for o in t.part("closer").settings.options]
    assert all(str(getattr(text, "text", text)).startswith("Closer to") for text in texts), texts


def test_b_s6_real_low_bit_checkpoints_keep_embeddings_and_head_in_16_bits():
    t, vs = variants("checkpoint-size-estimate", range(1))
    assert "output head in 16 bits" in render_solution(t, vs[0])


def test_b_s15_a_bf16_weight_does_m_flops_per_byte_not_1m():
    t, vs = variants("roofline-place-a-matmul", range(20))
    for v in vs:
        solution = render_solution(t, v)
        assert "1$m$" not in solution and "1*m*" not in solution, v.seed


def test_b_s12_fp8_weights_on_an_a100_are_said_to_be_widened_not_computed_in_fp8():
    t, vs = variants("intro-order-token-floors", range(1))
    prompt = " ".join(render_prompt(t, vs[0]).split())
    assert "or in fp8 on the A100 are widened to 16 bits" in prompt


def test_b_s2_the_title_does_not_promise_a_long_conversation():
    assert "long" not in template("kv-cache-estimate").title
