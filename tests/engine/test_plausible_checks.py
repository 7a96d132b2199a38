"""``plausible:`` checks: parsed with their lines, judged on every variant by the validator."""

from __future__ import annotations

import pytest

from quizzes.engine import TemplateError, parse_template, validate_template
from quizzes.engine.plausible import CHECKS, judge

TEMPLATE = """\
slug: decode-batch
title: A decode batch
chapter: inference
objectives: [Fit a batch]
difficulty: 2
parameters:
  acc: {{choice: [H100], catalog: accelerator}}
  m: {{choice: [llama-2-13b], catalog: model}}
  batch: {{choice: {batches}}}
  context: {{choice: {contexts}}}
plausible:
{checks}
prompt: |
  {{{{ m }}}} at batch {{{{ batch }}}} on the {{{{ acc }}}}.
parts:
  - id: t
    kind: numeric
    answer: "weights_bytes(m, 'bf16') / acc.memory_bandwidth"
    unit: s
    plausible: [1.0e-4, 1.0]
solution: |
  Weights over bandwidth.
"""

FITS = """\
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'bf16'"
    batch: batch
    context: context"""


def make(checks=FITS, batches="[8]", contexts="[2048]"):
    text = TEMPLATE.format(checks=checks, batches=batches, contexts=contexts)
    return parse_template(text, source="decode-batch.yaml")


def test_a_declared_check_is_parsed_with_its_arguments_and_line():
    template = make()
    (check,) = template.plausible
    assert check.check == "fits_memory"
    assert dict(check.arguments)["batch"].text == "batch"
    assert check.line == 12


def test_an_unknown_check_is_a_parse_error_naming_template_and_line():
    with pytest.raises(TemplateError) as caught:
        make(FITS.replace("fits_memory", "fits_memry"))
    message = str(caught.value)
    assert "decode-batch.yaml, line 12" in message
    assert "unknown check 'fits_memry'" in message and "fits_memory" in message


def test_an_unknown_argument_is_a_parse_error_naming_its_line():
    with pytest.raises(TemplateError) as caught:
        make(FITS.replace("    context: context", "    contxt: context"))
    message = str(caught.value)
    assert "decode-batch.yaml, line 17" in message
    assert "unknown argument of check 'fits_memory'" in message


def test_a_missing_argument_and_an_unknown_name_are_parse_errors():
    with pytest.raises(TemplateError) as caught:
        make(FITS.replace("    batch: batch\n", "").replace("model: m", "model: mm"))
    message = str(caught.value)
    assert "needs the argument 'batch'" in message
    assert "mm" in message


def test_the_validator_reports_a_variant_that_does_not_fit_with_its_seed():
    # Llama-2-13B bf16 is 26 GB; at batch 256 and 4096 tokens its cache is about 860 GB.
    template = make(batches="[8, 256]")
    report = validate_template(template, seeds=40)
    (failure,) = [f for f in report.failures if f.check == "plausible fits_memory"]
    assert "decode-batch.yaml, line 12" in failure.message
    assert failure.seed is not None and failure.count > 1
    assert "more than" in failure.message


def test_the_validator_passes_variants_that_fit():
    assert validate_template(make(), seeds=20).ok


def test_within_context_uses_the_models_window():
    checks = "  - check: within_context\n    model: m\n    context: context"
    report = validate_template(make(checks, contexts="[2048, 8192]"), seeds=40)
    (failure,) = [f for f in report.failures if f.check != "plausible coverage"]
    assert failure.check == "plausible within_context"
    assert "window of 4096" in failure.message


@pytest.mark.parametrize(
    ("acc", "ln", "plausible"),
    [
        ("A100", "pcie4", True),
        ("A100", "pcie6", False),  # the review's seed-1 pairing
        ("A100", "nvlink3", True),
        ("H100", "nvlink3", False),
        ("A100", "ib-hdr", True),
        ("A100", "ib-ndr", False),  # DGX A100 ships HDR
        ("H100", "ib-ndr", True),
        ("L4", "nvlink4", False),
    ],
)
def test_has_link(acc, ln, plausible):
    assert (judge("has_link", {"accelerator": acc, "link": ln}) is None) is plausible


def test_fits_memory_counts_devices_and_a_separate_cache_dtype():
    args = {"model": "llama-2-70b", "accelerator": "H100", "dtype": "bf16"}
    args |= {"batch": 1, "context": 4096}
    assert judge("fits_memory", args) is not None  # 138 GB on one 80 GB GPU
    assert judge("fits_memory", {**args, "devices": 2}) is None
    big = {**args, "devices": 2, "batch": 64}  # 64 x 1.34 GB of bf16 cache
    assert judge("fits_memory", big) is not None
    assert judge("fits_memory", {**big, "devices": 4, "kv_dtype": "fp8"}) is None


def test_fits_memory_judges_at_a_serving_engines_budget_unless_told_otherwise():
    # Llama-3-70B in bf16 (141.1 GB) on one H200: vLLM's 131.8 GB (0.9 of the runtime's total
    # less the activations and buffers it sets aside) refuse it, the driver's 150.8 GB would
    # take it.
    args = {"model": "llama-3-70b", "accelerator": "H200", "dtype": "bf16"}
    args |= {"batch": 1, "context": 0}
    message = judge("fits_memory", args)
    assert message is not None and "131.8 GB usable (serving level)" in message
    assert judge("fits_memory", {**args, "level": "driver"}) is None
    assert judge("fits_memory", {**args, "level": "framework"}) is None


def test_batch_at_most():
    assert judge("batch_at_most", {"batch": 256, "max": 256}) is None
    assert "more than 256" in judge("batch_at_most", {"batch": 512, "max": 256})


def test_every_registered_check_documents_itself():
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "question-format.md").read_text()
    for name, kind in CHECKS.items():
        assert f"`{name}`" in doc
        for argument in kind.arguments:
            assert f"`{argument}`" in doc
