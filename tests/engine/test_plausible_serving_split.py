"""The plausibility rules judge a split model at the serving budget of its split (each GPU keeps
vLLM's NCCL buffers too), use the one serving batch cap of the physics module, and pair a GPU
only with the network ports its servers ship with (docs/bank-review-ledger.md R-1, R-5, R-12)."""

from __future__ import annotations

import pytest

from content.physics import (
    kv_cache_bytes,
    serving_batch_cap,
    usable_memory_bytes,
    weights_bytes,
)
from quizzes.engine import parse_template, validate_template
from quizzes.engine.plausible import judge

SPLIT = """\
slug: split-serving
title: A split model's caches
chapter: inference
objectives: [Fit a batch on two GPUs]
difficulty: 2
parameters:
  acc: {choice: [A100], catalog: accelerator}
  m: {choice: [llama-3-70b], catalog: model}
  batch: {choice: [BATCHES]}
plausible:
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'bf16'"
    batch: batch
    context: 8192
    devices: 2
prompt: |
  {{ m }} on two {{ acc }} GPUs, {{ batch }} conversations of 8,192 tokens.
parts:
  - id: t
    kind: numeric
    answer: "weights_bytes(m, 'bf16') / acc.memory_bandwidth"
    unit: s
    plausible: [1.0e-4, 1.0]
solution: |
  Weights over bandwidth.
"""


def test_two_8k_conversations_of_llama_3_70b_on_two_a100s_fit_on_paper_only():
    # bank-recheck R-1, seeds 29, 47, 56: one GPU's reserve (1.79 GiB of non-torch memory) left
    # room for 2 caches; the catalog's TP-2 figure (3.58 GiB on each GPU) leaves none.
    need = weights_bytes("llama-3-70b", "bf16") + kv_cache_bytes("llama-3-70b", 8192, "bf16", 2)
    assert need <= 2 * usable_memory_bytes("A100")
    assert need > 2 * usable_memory_bytes("A100", gpus=2)
    args = {"model": "llama-3-70b", "accelerator": "A100", "dtype": "bf16", "kv_dtype": None}
    args |= {"batch": 2, "context": 8192, "devices": 2, "level": "serving"}
    message = judge("fits_memory", args)
    assert message is not None
    assert f"{2 * usable_memory_bytes('A100', gpus=2) / 1e9:.1f} GB usable" in message


def test_the_validator_refuses_a_template_whose_split_fits_on_paper_only():
    report = validate_template(
        parse_template(SPLIT.replace("BATCHES", "2"), source="split-serving.yaml"), seeds=4
    )
    (failure,) = [f for f in report.failures if f.check == "plausible fits_memory"]
    assert "2 x A100" in failure.message and "more than" in failure.message
    # No cache beside the weights does fit the split's budget.
    passing = parse_template(SPLIT.replace("BATCHES", "0"), source="split-serving.yaml")
    assert not [
        f
        for f in validate_template(passing, seeds=4).failures
        if f.check == "plausible fits_memory"
    ]


@pytest.mark.parametrize(("acc", "cap"), [("A100", 256), ("L4", 256), ("H100", 1024)])
def test_the_serving_batch_rule_uses_the_physics_cap(acc, cap):
    assert serving_batch_cap(acc) == cap
    args = {"model": "llama-2-7b", "accelerator": acc, "dtype": "int4", "kv_dtype": "fp8"}
    args |= {"batch": cap + 1, "context": 16, "devices": 8, "level": "serving"}
    assert f"more than the {cap} a serving engine schedules" in judge("fits_memory", args)
    assert judge("fits_memory", {**args, "batch": cap}) is None


@pytest.mark.parametrize(
    ("acc", "ln", "plausible"),
    [
        # DGX B200 ships 400 Gb/s ConnectX-7 (NDR), AWS's P6-B200 400 Gb/s EFA v4; 800 Gb/s
        # ports (XDR, 800 GbE) come with B300, which the catalog does not hold
        ("B200", "ib-ndr", True),
        ("B200", "efa-v4", True),
        ("B200", "eth-400g", True),
        ("B200", "ib-xdr", False),
        ("B200", "eth-800g", False),
        ("H100", "ib-xdr", False),
    ],
)
def test_a_b200_has_the_network_ports_its_servers_ship_with(acc, ln, plausible):
    assert (judge("has_link", {"accelerator": acc, "link": ln}) is None) is plausible
