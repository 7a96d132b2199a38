"""The re-check of the fixes (docs/reviews/bank-recheck-2026-12-06.md; ledger section R): each
test names its finding and fails on the template as it was before the fix.  Expected values
are recomputed here from the catalog's own figures (the serving budget, the batch cap), not
from the functions under test.
"""

from __future__ import annotations

import math
import re

import pytest

from content.physics import (
    accelerator,
    checkpoint_bytes,
    decode_weight_bytes,
    kv_cache_bytes,
    measurement,
    model,
    weights_bytes,
)
from content.physics.moe import expert_params, routed_params
from quizzes.engine import render_solution
from quizzes.engine.render import names_for, render_text

from .test_bank_review_findings import PATHS, variants

SEEDS = range(60)


def budget(acc, gpus):
    """vLLM's budget on each of ``gpus`` GPUs: 0.9 × the runtime's total less the activation
    peak and the non-torch memory of one GPU alone or of each GPU of a split."""
    part = accelerator(acc)
    total = part.memory_runtime_bytes or part.memory_bytes
    non_torch = measurement("vllm/non-torch-tp1" if gpus == 1 else "vllm/non-torch-tp2").value
    return 0.9 * total - measurement("vllm/activation-peak").value - non_torch


def batch_cap(acc):
    """vLLM's default max_num_seqs (get_batch_defaults)."""
    part = accelerator(acc)
    total = part.memory_runtime_bytes or part.memory_bytes
    return 1024 if total >= 70 * 2**30 and "a100" not in part.name.lower() else 256


def option_feedback(t, v):
    """Every option's rendered feedback, by option id."""
    names = names_for(v.params, v.answers)
    with v.replaying():
        return {
            o.id: render_text(t, o.feedback, names)
            for part in t.parts
            for o in getattr(part.settings, "options", None) or ()
            if o.feedback
        }


@pytest.fixture(scope="module")
def fp8_conversations():
    return variants("kv-cache-fp8-conversations", SEEDS)


def test_r1_a_split_model_is_charged_the_reserve_of_its_split(fp8_conversations):
    # seeds 29, 47, 56: Llama-3-70B on 2 x A100 at 8,192 tokens showed 2 conversations where
    # the TP-2 reserve leaves room for none
    _, vs = fp8_conversations
    split = [v for v in vs if v.params["n"] > 1]
    assert split
    for v in vs:
        p = v.params
        m, acc, n, context = p["m"], p["acc"], p["n"], p["context"]
        room = n * budget(acc, n)
        spare = room - weights_bytes(m, "bf16")
        assert v.params["bf"] == math.floor(spare / kv_cache_bytes(m, context, "bf16")), v.seed
        assert v.params["f8"] == math.floor(spare / kv_cache_bytes(m, context, "fp8")), v.seed


def test_r2_options_and_solution_give_one_share_of_one_budget(fp8_conversations):
    t, vs = fp8_conversations
    for v in vs[:12]:
        p = v.params
        share = weights_bytes(p["m"], "bf16") / (p["n"] * budget(p["acc"], p["n"]))
        texts = [*option_feedback(t, v).values(), render_solution(t, v)]
        shares = {s for text in texts for s in re.findall(r"take (\d+(?:\.\d+)?)%", text)}
        assert shares == {f"{100 * share:.2g}"}, (v.seed, shares)


def test_r9_fp8_weights_keep_their_16_bit_tables_and_no_count_passes_the_cap(
    fp8_conversations,
):
    t, vs = fp8_conversations
    for v in vs:
        p = v.params
        m, acc, n, context = p["m"], p["acc"], p["n"], p["context"]
        spare = n * budget(acc, n) - checkpoint_bytes(m, "fp8")
        assert p["w8"] == math.floor(spare / kv_cache_bytes(m, context, "bf16")), v.seed
        assert max(p["bf"], p["f8"], p["w8"]) <= batch_cap(acc), v.seed
    assert "16 bits" in render_solution(t, vs[0])


def test_r4_a_split_count_divides_by_each_gpus_budget_of_a_split():
    # seeds 23, 27, 36: Llama-2-70B fp16 on L4s, 7.69 GPUs' worth of one L4 alone: 9, not 8
    _, vs = variants("intro-weights-how-many-gpus", SEEDS)
    changed_by_split = 0
    for v in vs:
        p = v.params
        w, acc = p["w"], p["acc"]
        alone = budget(acc, 1)
        expected = 1 if w <= alone else math.ceil(w / budget(acc, 2))
        assert v.answers["gpus"] == expected, v.seed
        changed_by_split += expected > 1 and math.ceil(w / alone) != expected
    # the seeds include counts the split's reserve changes, so the check above can tell
    assert changed_by_split > 0


def test_r4_the_solution_no_longer_leaves_activations_to_come():
    t, vs = variants("intro-weights-how-many-gpus", range(3))
    for v in vs:
        solution = render_solution(t, v)
        assert "or activations is counted" not in solution
        assert "already set the activations aside" in solution


B200_PORTS = {"nvlink5", "ib-ndr", "efa-v4", "eth-400g"}


@pytest.mark.parametrize(
    ("slug", "name"),
    [
        ("allreduce-estimate", "ln"),
        ("intro-link-bits-and-bytes", "ln"),
        ("order-paths-by-bandwidth", "nic"),
        ("bandwidth-staircase", "port"),
    ],
)
def test_r5_a_b200_is_paired_only_with_ports_its_servers_ship_with(slug, name):
    # DGX B200: 400 Gb/s ConnectX-7 (NDR); XDR and 800 GbE come with B300, not catalogued
    t, vs = variants(slug, SEEDS)
    b200 = [v for v in vs if v.params["acc"].key == "b200"]
    assert b200, slug
    for v in b200:
        assert v.params[name].key in B200_PORTS, (slug, v.seed, v.params[name].key)
    assert "ib-xdr" not in PATHS[slug].read_text().split("constraints:")[0], slug


def test_r8_always_read_bytes_count_the_input_table_as_the_decode_count_does():
    # seeds 25, 30, 34, 36: DeepSeek-V3 bf16 at batch 1 counted the whole input embedding table
    # (2.47% of the bytes, past the part's 2% tolerance)
    _, vs = variants("moe-bytes-at-batch", SEEDS)
    for v in vs:
        p = v.params
        m, dt = model(p["m"]), p["dt"]
        experts = (m.layers - m.dense_layers) * p["touched"] * expert_params(m)
        untouched = routed_params(m) - experts
        per_weight = 1 if dt == "fp8" else 2
        expected = decode_weight_bytes(m, dt) - untouched * per_weight
        assert v.answers["bytes"] == pytest.approx(expected, rel=1e-9), v.seed


@pytest.mark.parametrize(
    ("slug", "seed"),
    [("intro-weights-how-many-gpus", 0), ("kv-cache-fp8-conversations", 1)],
)
def test_r10_worked_tables_do_not_label_the_budget_90_percent(slug, seed):
    t, (v,) = variants(slug, [seed])
    solution = render_solution(t, v)
    assert "(90%)" not in solution
    assert "90% of the runtime&#x27;s total" in solution or "90% of the runtime's total" in solution


def test_r12_no_template_writes_the_batch_cap_itself():
    for slug, path in PATHS.items():
        text = path.read_text()
        assert "7.5e10" not in text and "acc.key == 'a100-sxm-80gb' or" not in text, slug


def test_r12_the_batch_bounded_templates_stay_within_the_catalogs_cap():
    for slug, name in [("kv-cache-max-batch", None), ("speculative-at-batch", "b")]:
        _, vs = variants(slug, range(20))
        for v in vs:
            batch = v.params[name] if name else math.floor(v.params["fit"])
            assert batch <= batch_cap(v.params["acc"]), (slug, v.seed)
