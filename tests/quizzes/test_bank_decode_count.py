"""One decode count per template (issue 30, bank-j's step 4). The physics has two counts of a
decode step: the simple one (`decode_step_time`: the whole checkpoint read, 2 FLOPs per
parameter, the input embedding table included) and chapter 03's pass (`decode_weight_bytes`,
`decode_flops_per_token`: without the table, which a step only looks up). A template uses one
in its prompt, key, solution and feedback, and its prompt says which, so a student who applies
chapter 03's count where the key counts every weight (6.5% apart for Llama-3-8B, past a 2%
tolerance) is told which count the question wants."""

from __future__ import annotations

import math

import pytest

from content.physics import kv_cache_bytes, model_flops_per_token, weights_bytes
from quizzes.engine import render_prompt, render_solution

from .test_bank_review_findings import variants

SEEDS = range(40)
WHOLE = "counting the whole checkpoint, the input embedding table included"


def flat(text):
    return " ".join(text.split())


def _intensity_batch_one(v):
    p, a = v.params, v.answers
    assert a["flops"] == 2 * p["m"].active_params == model_flops_per_token(p["m"])
    assert a["moved"] == weights_bytes(p["m"], p["dt"])


def _roofline_step(v):
    p = v.params
    read = weights_bytes(p["m"], "bf16") + kv_cache_bytes(p["m"], p["ctx"], "bf16", p["b"])
    assert math.isclose(v.answers["point"][0], 2 * p["m"].params * p["b"] / read, rel_tol=1e-12)


def _prefill_or_decode(v):
    p = v.params
    read = weights_bytes(p["m"], "bf16") + p["kv"]
    assert math.isclose(p["intensity"], 2 * p["m"].params * p["tokens"] / read, rel_tol=1e-12)


def _kv_reads_share(v):
    p = v.params
    read = p["w"] + kv_cache_bytes(p["m"], p["start"], "bf16", p["batch"])
    assert p["w"] == weights_bytes(p["m"], "bf16")
    assert math.isclose(v.answers["first"], read / p["acc"].memory_bandwidth, rel_tol=1e-12)


def _cost(v):
    p = v.params
    read = weights_bytes(p["m"], "bf16") + p["kv"]
    assert math.isclose(v.answers["step"], read / p["acc"].memory_bandwidth, rel_tol=1e-12)


def _doubling(v):
    p = v.params
    read = weights_bytes(p["m"], "bf16") + 2 * p["kv"]
    time = read / (p["n"] * p["acc"].memory_bandwidth)
    assert math.isclose(v.answers["step2"], time, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("slug", "key"),
    [
        ("decode-intensity-batch-one", _intensity_batch_one),
        ("decode-step-on-the-roofline", _roofline_step),
        ("prefill-or-decode-bound", _prefill_or_decode),
        ("decode-kv-reads-share", _kv_reads_share),
        ("cost-per-million-tokens", _cost),
        ("batch-doubling-what-breaks", _doubling),
    ],
)
def test_a_whole_checkpoint_template_says_so_and_keys_on_it(slug, key):
    t, vs = variants(slug, SEEDS)
    for v in vs:
        key(v)
        prompt = flat(render_prompt(t, v))
        assert WHOLE in prompt.replace("Count the whole", "counting the whole"), v.seed
        assert "chapter 03" in prompt, v.seed
        # nothing in the question says the table is left out of this count
        for text in (prompt, flat(render_solution(t, v))):
            assert "only looked up" not in text.replace("as a step only looks it up", ""), v.seed
            assert "as chapter 03 counts a decode pass" not in text, v.seed
