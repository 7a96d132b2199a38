"""The expression language over the real physics module: the book's own examples."""

from __future__ import annotations

import pytest

import content.physics as physics
from content.expressions import ExpressionError, default_namespace, evaluate, render_live


@pytest.fixture(autouse=True)
def trust_fake_catalog():
    """Override the stand-in catalog of conftest: these tests use the real one."""


def test_default_namespace_holds_physics_and_maths_names():
    names = default_namespace()
    assert set(physics.__all__) <= set(names)
    assert {"min", "max", "sqrt", "log2", "ceil", "len"} <= set(names)


def test_physics_calls_evaluate_in_si_units():
    assert (
        evaluate('accelerator("H100").memory_bandwidth')
        == physics.accelerator("H100").memory_bandwidth
    )
    ridge = evaluate('ridge_point("H100", "bf16")')
    assert ridge == pytest.approx(
        physics.accelerator("H100").peak("bf16") / physics.accelerator("H100").memory_bandwidth
    )
    assert evaluate('model("llama-2-70b").layers') == physics.model("llama-2-70b").layers
    assert evaluate('accelerator("A100").peak_flops["bf16"]') == physics.accelerator("A100").peak(
        "bf16"
    )


def test_book_examples_render_with_engineering_prefixes():
    text = (
        '{{ accelerator("H100").memory_bandwidth | B/s }}; '
        '{{ ridge_point("H100", "bf16") | FLOP/B }}; '
        '{{ time_per_token_floor("llama-2-7b", "H100", "fp16") | s }}; '
        '{{ accelerator("H100").peak("bf16") | FLOP/s | approx }}'
    )
    h100 = physics.accelerator("H100")
    expected = "; ".join(
        [
            physics.format_quantity(h100.memory_bandwidth, "B/s"),
            physics.format_quantity(physics.ridge_point(h100, "bf16"), "FLOP/B"),
            physics.format_quantity(physics.time_per_token_floor("llama-2-7b", h100, "fp16"), "s"),
            physics.format_quantity(h100.peak("bf16"), "FLOP/s", approx=True),
        ]
    )
    assert render_live(text).text == expected
    assert render_live('{{ accelerator("H100").memory_bandwidth | B/s }}').text == "3.35 TB/s"


def test_catalog_objects_cannot_be_escaped_from():
    for expr in (
        'accelerator("H100").__class__',
        'accelerator("H100").__dataclass_fields__',
        "accelerator.__globals__",
        'accelerator("H100").sources.__class__',
        'dtype("fp16").__reduce__()',
    ):
        with pytest.raises(ExpressionError):
            evaluate(expr)


def test_unknown_catalog_name_lists_close_names():
    with pytest.raises(ExpressionError) as info:
        evaluate('accelerator("H10")', source="gpus.md", line=3)
    assert str(info.value).startswith('gpus.md, line 3: accelerator("H10"): ')


def test_chapter_citations_name_the_catalog_sources():
    result = render_live('The bandwidth is {{ ridge_point("H100", "bf16") | FLOP/B }}.')
    keys = {source.key for source in result.citations}
    # F-10 (eighth pass): the sources of the fields the function read, not the part's every one
    h100 = physics.accelerator("H100")
    assert keys == {h100.source_key("peak_flops.bf16"), h100.source_key("memory_bandwidth")}
    assert "cuda-guide-cc" in {c.key for c in h100.citations()} and "cuda-guide-cc" not in keys
    assert all(isinstance(source, physics.Source) for source in result.citations)


def test_explain_renders_a_worked_table_and_an_aligned_block():
    explanation = physics.explain("ridge_point", "H100", "bf16")
    table = render_live('{{ explain("ridge_point", "H100", "bf16") }}').text
    assert table.startswith(f"**{explanation.title}**")
    assert table.count("\n| ") == len(explanation.steps) + 2  # header and rule rows
    assert all(f"| {step.result} |" in table for step in explanation.steps)
    aligned = render_live('{{ explain("ridge_point", "H100", "bf16") | aligned }}').text
    assert aligned.startswith("$$\n\\begin{aligned}") and aligned.endswith("\\end{aligned}\n$$")
    with pytest.raises(ExpressionError, match="on its own line"):
        render_live('$x = {{ explain("ridge_point", "H100", "bf16") }}$')


def test_values_inside_math_get_text_units():
    text = (
        '$t = \\frac{ {{ weights_bytes("llama-2-7b", "fp16") | in GB }} }'
        '{ {{ accelerator("H100").memory_bandwidth | in TB/s }} }$'
    )
    rendered = render_live(text).text
    assert "\\,\\text{GB}" in rendered and "3.35\\,\\text{TB/s}" in rendered


def test_catalog_mappings_read_like_dicts():
    peak = physics.accelerator("H100").peak("bf16")
    assert evaluate('accelerator("H100").peak_flops.get("bf16")') == peak
    assert evaluate('"bf16" in accelerator("H100").peak_flops') is True
    assert evaluate('"fp99" in accelerator("H100").peak_flops.keys()') is False
    with pytest.raises(ExpressionError, match="not allowed"):
        evaluate('accelerator("H100").peak_flops._data')
