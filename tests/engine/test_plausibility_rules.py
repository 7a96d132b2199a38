"""The plausibility rules of the publication gate (issue 30, item 2): each class of impossible
variant the bank review found is refused in a small template written to break it, with a
message that names the rule and the seed that shows it."""

from __future__ import annotations

import pytest

from quizzes.engine import parse_template, validate_template
from quizzes.engine.plausible import judge
from quizzes.engine.plausible.hardware import form_factor

HEAD = """\
slug: rule-probe
title: A probe of one rule
chapter: inference
objectives: [Probe a plausibility rule]
difficulty: 2
"""
NUMERIC_PART = """\
parts:
  - id: t
    kind: numeric
    answer: "{answer}"
    plausible: [0.0, 1.0e30]
solution: |
  Nothing to see.
prompt: |
  A probe.
"""


def probe(parameters: str, plausible: str = "", answer: str = "1.0", parts: str = ""):
    text = HEAD + "parameters:\n" + parameters
    if plausible:
        text += "plausible:\n" + plausible
    text += parts or NUMERIC_PART.format(answer=answer)
    return parse_template(text, source="rule-probe.yaml")


def failures(template, seeds=30, check=None):
    report = validate_template(template, seeds=seeds)
    return [f for f in report.failures if check is None or f.check == check]


# -- memory: the model fits the memory its stated parallelism gives it ------------------------

LLAMA_405B_ON_4 = """\
  m: {choice: [llama-3.1-405b], catalog: model}
  acc: {choice: [H100], catalog: accelerator}
  n: {choice: [4, 8]}
"""
FITS_N = """\
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'bf16'"
    batch: 1
    context: 2048
    devices: n
"""


def test_rule_memory_fit_refuses_llama_405b_in_bf16_over_four_h100s_with_its_seed():
    (failure,) = failures(probe(LLAMA_405B_ON_4, FITS_N), check="plausible fits_memory")
    assert failure.seed is not None
    assert "4 x H100 SXM 80 GB" in failure.message and "(serving level)" in failure.message
    assert "rule-probe.yaml, line" in failure.message
    assert "[seed " in str(failure)


def test_rule_memory_fit_is_asked_for_when_a_template_draws_a_model_and_an_accelerator():
    (failure,) = failures(probe(LLAMA_405B_ON_4), check="plausible coverage")
    assert "rule memory-fit" in failure.message and "`fits_memory`" in failure.message
    assert failure.seed is None  # the rule reads the template, not one variant


def test_an_idealisation_answers_the_memory_rule():
    idealised = (
        "  - check: idealised\n    skips: \"'fits_memory'\"\n"
        "    because: \"'the prompt asks what the weights would need'\"\n"
    )
    assert not failures(probe(LLAMA_405B_ON_4, idealised), check="plausible coverage")


def test_the_usable_level_refuses_a_fill_that_the_reported_capacity_would_allow():
    args = {"model": "llama-3-70b", "accelerator": "H200", "dtype": "bf16"}
    args |= {"batch": 1, "context": 4096}  # 142 GB on a 150.8 GB device: 94% full
    assert judge("fits_memory", {**args, "level": "driver"}) is None
    assert "(serving level)" in judge("fits_memory", args)


def test_rule_training_state_refuses_a_70b_model_sharded_over_eight_80_gb_gpus():
    args = {"model": "llama-2-70b", "accelerator": "H100", "devices": 8}
    message = judge("training_fits", args)  # 16 B x 69 G / 8 = 138 GB per GPU
    assert "138.0 GB per GPU" in message and "sharded over 8 GPUs" in message
    assert judge("training_fits", {**args, "devices": 16}) is None
    assert judge("training_fits", {**args, "devices": 16, "sharded": False}) is not None


MODEL_OVER_A_LINK = """\
  m: {choice: [llama-3-70b], catalog: model}
  ln: {choice: [nvlink4], catalog: link}
"""


def test_rule_memory_fit_is_asked_for_when_a_template_sends_a_model_over_a_link():
    # the review's B-P2: "data parallelism" of Llama-3-70B over an NVLink 4 server, in a
    # template that named no GPU and so declared no fit
    (failure,) = failures(probe(MODEL_OVER_A_LINK), check="plausible coverage")
    assert "rule memory-fit" in failure.message and "a link (ln)" in failure.message
    training = (
        "  - check: training_fits\n    model: m\n    accelerator: \"'H100'\"\n    devices: 8\n"
    )
    assert not failures(probe(MODEL_OVER_A_LINK, training), check="plausible coverage")


LLAMA_8B_BATCH = """\
  m: {choice: [llama-3-8b], catalog: model}
  acc: {choice: [MI300X], catalog: accelerator}
  b: {choice: [2048]}
"""
FITS_BATCH = """\
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'bf16'"
    batch: b
    context: 128
"""


def test_rule_serving_batch_refuses_more_sequences_than_a_default_server_schedules():
    # the new-templates review's B-P1: 2,068 conversations of Llama-3-8B "fit at once" on an
    # MI300X (memory allows it; vLLM's scheduler does not, by default)
    (failure,) = failures(probe(LLAMA_8B_BATCH, FITS_BATCH), check="plausible fits_memory")
    assert "a batch of 2048 sequences is more than the 1024" in failure.message
    assert "max_num_seqs" in failure.message and failure.seed is not None


@pytest.mark.parametrize(
    ("acc", "batch", "plausible"),
    [
        ("A100", 384, False),  # 256 on the A100, whatever its 80 GB (vLLM excludes it by name)
        ("A100", 256, True),
        ("L4", 300, False),  # under 70 GiB
        ("H100", 1024, True),
        ("H100", 1025, False),
        ("MI300X", 1024, True),
    ],
)
def test_rule_serving_batch_caps_by_the_gpu_as_vllm_does(acc, batch, plausible):
    args = {"model": "llama-3-8b", "accelerator": acc, "dtype": "bf16", "context": 16}
    message = judge("fits_memory", {**args, "batch": batch})
    assert (message is None) is plausible, message
    # the cap is a serving engine's: a fit judged at another level does not apply it
    assert judge("fits_memory", {**args, "batch": batch, "level": "framework"}) is None


# -- form factor and link ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("acc", "ln", "plausible"),
    [
        ("A100", "pcie4", False),  # the review's I4: SXM modules "each on its own x16 slot"
        ("H100", "pcie5", False),  # M6: tensor parallelism of H100 SXM over PCIe Gen5
        ("H100", "nvlink4", True),
        ("H100", "ib-ndr", True),  # between servers
        ("h100-pcie", "pcie5", True),
        ("h100-pcie", "nvlink4", False),
        ("L4", "pcie4", True),
        ("mi300x", "infinity-fabric", True),
    ],
)
def test_rule_peer_link_pairs_modules_with_their_fabric_and_cards_with_pcie(acc, ln, plausible):
    assert (judge("peer_link", {"accelerator": acc, "link": ln}) is None) is plausible


def test_form_factors_come_from_the_catalog():
    assert form_factor("H100") == "module" and form_factor("h100-pcie") == "card"
    assert form_factor("epyc-9654") == "cpu"


def test_rule_link_pairing_refuses_an_sxm_copy_over_pcie_with_its_seed():
    params = (
        "  acc: {choice: [A100], catalog: accelerator}\n"
        "  ln: {choice: [nvlink3, pcie4], catalog: link}\n"
    )
    checks = "  - check: peer_link\n    accelerator: acc\n    link: ln\n"
    (failure,) = failures(probe(params, checks), check="plausible peer_link")
    assert "module on a baseboard" in failure.message and failure.seed is not None
    (cover,) = failures(probe(params), check="plausible coverage")
    assert "rule link-pairing" in cover.message


# -- values in the catalog's range for their kind ----------------------------------------------


def test_rule_value_range_refuses_a_largest_gradient_of_thousands():
    params = "  big_grad_exp: {range: [-4, 14], step: 1}\n"
    checks = "  - check: in_range\n    kind: \"'largest-gradient'\"\n    value: 2 ** big_grad_exp\n"
    (failure,) = failures(probe(params, checks), seeds=60, check="plausible in_range")
    assert "outside the range of largest-gradient" in failure.message
    assert "micikevicius-2018-mp" in failure.message
    (cover,) = failures(probe(params), check="plausible coverage")
    assert "rule value-range" in cover.message and "big_grad_exp" in cover.message


def test_rule_value_range_bounds_prices_by_the_catalog_and_headlines_by_the_vendor():
    assert (
        judge("in_range", {"kind": "gpu-hour-price", "value": 2.5, "accelerator": "H100"}) is None
    )
    assert judge("in_range", {"kind": "gpu-hour-price", "value": 25.0, "accelerator": "H100"})
    assert judge("in_range", {"kind": "gpu-hour-price", "value": 0.01})
    # U6: "a headline bandwidth of 63 GB/s" for PCIe Gen4 x16; vendors print 64.
    assert judge("in_range", {"kind": "link-headline", "value": 63e9, "link": "pcie4"})
    assert judge("in_range", {"kind": "link-headline", "value": 64e9, "link": "pcie4"}) is None
    assert "needs the argument link" in judge("in_range", {"kind": "link-headline", "value": 1})
    assert "did you mean" in judge("in_range", {"kind": "gpu-hour-prise", "value": 1.0})


# -- contexts within the window, sliding windows treated right ---------------------------------


def test_rule_context_refuses_a_mistral_cache_beyond_its_sliding_window():
    args = {"model": "mistral-7b", "context": 8192}
    assert "sliding window of 4096" in judge("within_context", args)
    assert judge("within_context", {**args, "cache_capped": True}) is None
    assert judge("within_context", {"model": "llama-3-8b", "context": 8192}) is None
    assert "window of 4096" in judge("within_context", {"model": "llama-2-7b", "context": 8192})


def test_a_declared_memory_fit_implies_the_context_rule():
    params = (
        "  m: {choice: [mistral-7b], catalog: model}\n"
        "  acc: {choice: [H100], catalog: accelerator}\n"
        "  context: {choice: [2048, 8192]}\n"
    )
    fits = (
        "  - check: fits_memory\n    model: m\n    accelerator: acc\n    dtype: \"'bf16'\"\n"
        "    batch: 1\n    context: context\n"
    )
    (failure,) = failures(probe(params, fits), check="plausible within_context")
    assert "sliding window" in failure.message and failure.seed is not None


# -- a choice whose key never changes ----------------------------------------------------------

CHOICE = """\
parts:
  - id: which
    kind: choice
    prompt: Which?
    options:
      - {{id: a, text: A, correct: "{a}"}}
      - {{id: b, text: B, correct: "not ({a})"}}
solution: |
  Because.
prompt: |
  A probe.
"""


def test_rule_fixed_key_flags_a_choice_whose_key_is_the_same_in_over_90_percent():
    params = "  x: {range: [1, 100], step: 1}\n"
    fixed = probe(params, parts=CHOICE.format(a="x <= 95"))
    (failure,) = failures(fixed, seeds=200, check="fixed-key")
    assert failure.part == "which" and "rule fixed-key" in failure.message
    assert "{a}" in failure.message
    varied = probe(params, parts=CHOICE.format(a="x <= 80"))
    assert not failures(varied, seeds=200, check="fixed-key")


def test_the_fixed_key_rule_waits_for_enough_seeds_at_the_gate():
    from quizzes.services.bank.gate import counts_at

    fixed = probe("  x: {range: [1, 100], step: 1}\n", parts=CHOICE.format(a="True"))
    (failure,) = failures(fixed, seeds=20, check="fixed-key")
    assert not counts_at(failure, 20) and counts_at(failure, 200)
