"""What the expression language computes: arithmetic, calls, fields, methods, subscripts."""

from __future__ import annotations

import math

import pytest

from content.expressions import ExpressionError, evaluate, free_names


def test_arithmetic_and_helpers(names):
    assert evaluate("max(2, 3) ** 2 + sqrt(16) - abs(-1)", names) == 12
    assert evaluate("log2(tokens)", names) == 12
    assert evaluate("ceil(7 / 2) + floor(7 / 2) + round(2.5)", names) == 4 + 3 + 2
    assert evaluate("sum([1, 2, 3]) + len([1, 2])", names) == 8


def test_conditionals_and_comparisons(names):
    assert evaluate('"memory" if tokens < 8192 and not tokens > 9000 else "compute"', names) == (
        "memory"
    )
    assert evaluate('acc in ["H100", "H200"]', names) is True


def test_catalog_fields_methods_and_subscripts(names):
    assert evaluate('accelerator("H100").memory_bandwidth', names) == 3.35e12
    assert evaluate('accelerator("a100").peak("bf16")', names) == 312e12
    assert evaluate('accelerator("A100").peak_flops["bf16"]', names) == 312e12
    assert evaluate('accelerator(acc).peak_flops.get("bf16")', names) == 989.4e12


def test_physics_function_with_keyword_argument(names):
    value = evaluate('ridge_point(acc=accelerator("H100"), dt="bf16")', names)
    assert math.isclose(value, 989.4e12 / 3.35e12)


def test_missing_mapping_key_suggests_close_key(names):
    with pytest.raises(ExpressionError, match="did you mean 'bf16'"):
        evaluate('accelerator("H100").peak_flops["bf61"]', names)


def test_free_names_separates_calls_from_values():
    called, read = free_names("ridge_point(acc, dt) * tokens + max(a, 1)")
    assert called == {"ridge_point", "max"}
    assert read == {"acc", "dt", "tokens", "a"}


def test_nan_result_is_an_error(names):
    with pytest.raises(ExpressionError, match="not a number"):
        evaluate("exp(1000) * 0 if False else (exp(700) * exp(700)) - (exp(700) * exp(700))", names)
