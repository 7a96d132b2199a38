"""A new variant learns the catalog entries its texts look up from their expressions
(`engine.lookups`), without rendering them: an author's text that looks up an entry the draw
never did still puts it in the snapshot, wherever the text is (prompt, option, feedback, hint,
solution), however it looks it up (a catalog function, a physics function given a name, a
method); a text with nothing that can look up is not evaluated at all; and a text the plan
cannot read, or an expression that fails, takes the full render, whose snapshot it matches."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import content.physics
from content.physics import accelerator, dtype, link, model
from quizzes.engine import generate_variant, parse_template
from quizzes.engine import lookups as engine_lookups
from quizzes.engine import variants as engine_variants

# The draw itself looks up one accelerator (a catalog parameter) and nothing else; every other
# entry below is looked up by a text only, one in each place a text can be.
HOSTILE = """\
slug: hostile-lookups
title: Texts that look up what the draw never did
chapter: inference
objectives: [Look things up in the texts]
difficulty: 2
parameters:
  acc: {{choice: [A100, H100], catalog: accelerator}}
  dt: {{choice: [fp16, bf16]}}
  size: {{range: [10, 40], step: 10}}
  w: {{value: "size * 1.0e9"}}
prompt: |
  Read {{{{ w | B }}}} on the {{{{ acc }}}}; {prompt}
parts:
  - id: t
    kind: numeric
    answer: "w / acc.memory_bandwidth"
    unit: s
    plausible: [1.0e-4, 1.0]
    common_errors:
      - code: bits-for-bytes
        value: "8 * w / acc.memory_bandwidth"
        feedback: "You read bits as bytes; {feedback}"
  - id: pick
    kind: choice
    options:
      - id: a
        text: "{option}"
        correct: true
      - id: b
        text: Something else.
        correct: false
        feedback: "{option_feedback}"
hints:
  - after: 1
    part: t
    text: "{hint}"
  - after: 1
    part: pick
    text: Read the question again.
solution: |
  It takes {{{{ part_t | s }}}}; {solution}
"""

INERT = {
    "prompt": "nothing else.",
    "feedback": "{{ 8 * w | B }} is too much.",
    "option": "{{ size }} GB.",
    "option_feedback": "Not {{ size * 2 }}.",
    "hint": "Bytes over bytes per second.",
    "solution": "{{ part_t * 2 | s }} twice over.",
}

# Each text looks up one entry the draw does not, and says which.
LOOKS_UP = {
    "prompt": (
        'the H200 reads {{ accelerator("H200").memory_bandwidth | B/s }}.',
        lambda v: [("accelerator", accelerator("H200").key)],
    ),
    "feedback": (
        "{{ model('llama-2-7b').params }} parameters.",
        lambda v: [("model", model("llama-2-7b").key)],
    ),
    "option": ("{{ link('nvlink4').bandwidth | B/s }}.", lambda v: [("link", link("nvlink4").key)]),
    "option_feedback": (
        "{{ weights_bytes(7e9, 'int8') | B }}.",
        lambda v: [("dtype", dtype("int8").name)],
    ),
    "hint": (
        "A value is {{ dtype(dt).bytes }} bytes.",
        lambda v: [("dtype", dtype(v.params["dt"]).name)],
    ),
    "solution": ("at {{ acc.peak('fp32') | FLOP/s }}.", lambda v: [("dtype", dtype("fp32").name)]),
}


def _template(**texts):
    return parse_template(HOSTILE.format(**{**INERT, **texts}), source="hostile.yaml")


def _entries(variant) -> set[tuple[str, str]]:
    return {(e["kind"], e["key"]) for e in variant.catalog["entries"]}


def _full_render(monkeypatch, template, seed):
    """The draw as it was: every text rendered to record its look-ups."""
    with monkeypatch.context() as patched:
        patched.setattr(engine_lookups, "looked_up", lambda template, variant: None)
        return generate_variant(template, seed)


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The full renders a draw makes, by template slug."""
    calls: list[str] = []
    touch = engine_variants._touch_texts

    def counting(template, variant):
        calls.append(template.slug)
        return touch(template, variant)

    monkeypatch.setattr(engine_variants, "_touch_texts", counting)
    return calls


@pytest.mark.parametrize("where", sorted(LOOKS_UP))
def test_an_entry_only_a_text_looks_up_is_in_the_snapshot(monkeypatch, renders, where):
    text, expected = LOOKS_UP[where]
    template = _template(**{where: text})
    assert not template.text_plan.render
    for seed in (1, 2, 3):
        drawn_only = generate_variant(template, seed, record_texts=False)
        variant = generate_variant(template, seed)
        wanted = set(expected(variant))
        assert wanted <= _entries(variant), (where, seed)
        assert not wanted & _entries(drawn_only), (where, seed)  # the text's, not the draw's
        assert variant.to_json() == _full_render(monkeypatch, template, seed).to_json()
    assert renders == [template.slug] * 3  # only the comparison's full renders


def test_every_hostile_text_at_once_matches_the_full_render(monkeypatch, renders):
    template = _template(**{where: text for where, (text, _) in LOOKS_UP.items()})
    for seed in range(8):
        variant = generate_variant(template, seed)
        assert variant.to_json() == _full_render(monkeypatch, template, seed).to_json()
        for _, expected in LOOKS_UP.values():
            assert set(expected(variant)) <= _entries(variant)
    assert len(renders) == 8


def test_texts_that_cannot_look_anything_up_are_not_evaluated(monkeypatch, renders):
    template = _template()
    # `{{ acc }}` touches a catalog entry, whose sources the prompt's citations look up; the
    # rest read plain numbers (or nothing), which can look nothing up.
    needed = [(n.expr, n.reads) for n in template.text_plan.needed]
    assert needed == [
        ("w", ("w",)),
        ("acc", ("acc",)),
        ("part_t", ("part_t",)),
        ("part_t * 2", ("part_t",)),
        ("8 * w", ("w",)),
        ("size", ("size",)),
        ("size * 2", ("size",)),
    ]
    evaluated: list[str] = []
    evaluate = engine_lookups.evaluate_tracked

    def counting(expr, *args, **kwargs):
        evaluated.append(expr)
        return evaluate(expr, *args, **kwargs)

    monkeypatch.setattr(engine_lookups, "evaluate_tracked", counting)
    variant = generate_variant(template, 5)
    assert evaluated == ["acc"] and renders == []
    assert variant.to_json() == _full_render(monkeypatch, template, 5).to_json()
    assert ("accelerator", variant.params["acc"].key) in _entries(variant)
    assert any(kind == "source" for kind, _ in _entries(variant))  # the prompt's citations


def test_the_plan_lists_each_expression_that_calls_or_reads_an_attribute_once():
    text = LOOKS_UP["prompt"][0]
    template = _template(prompt=text, solution=text, hint="at {{ acc.memory_bandwidth | B/s }}")
    calls = [n.expr for n in template.text_plan.needed if n.reads is None]
    assert calls == ['accelerator("H200").memory_bandwidth', "acc.memory_bandwidth"]


def test_a_failing_expression_takes_the_full_render(monkeypatch, renders):
    # A hint whose look-up fails for every variant: the draw records what the full render
    # records (it stops at the first failing text), and the page reports the broken hint.
    template = _template(
        hint="{{ accelerator('B9000').memory_bandwidth }}", **{"solution": LOOKS_UP["solution"][0]}
    )
    variant = generate_variant(template, 4)
    assert renders == [template.slug]
    assert variant.to_json() == _full_render(monkeypatch, template, 4).to_json()


def test_a_text_the_plan_cannot_read_takes_the_full_render():
    template = _template()
    fields = {name: getattr(template, name) for name in template.__dataclass_fields__}
    broken = type(template)(**{**fields, "solution": type(template.solution)("{{ 1 + }}")})
    assert engine_lookups.text_plan(broken).render
    assert not engine_lookups.text_plan(template).render


def test_a_kind_that_evaluates_when_rendering_takes_the_full_render():
    from quizzes.engine import kinds
    from quizzes.engine.model import Part

    assert kinds.kind_for(Part(id="r", kind="roofline_point")).rendered_texts(None) is None
    assert kinds.kind_for(Part(id="f", kind="formula")).rendered_texts(None) == ()


# -- what the plan's reading rests on -------------------------------------------------------

# Operators, comparisons, subscripts and formatting of a variant's values run no code of the
# subject, so an expression without a call or an attribute looks nothing up. The classes of the
# physics package that define such methods by hand are listed here, each read to hold that: a
# new one fails this test until someone has read it.
OPERATOR_METHODS = {
    f"__{name}__"
    for name in (
        "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow "
        "neg pos abs invert and rand or ror xor rxor lshift rshift lt le gt ge eq ne "
        "getitem contains bool len iter format str repr float int index round hash"
    ).split()
}
# FrozenMap and a miss's message read their own data; a Year's round() is itself.
READS_ITS_OWN_DATA = {"FrozenMap", "_MissingMessage", "Year"}
HERE = str(Path(content.physics.__file__).resolve().parent)


def _physics_classes():
    for info in pkgutil.walk_packages(content.physics.__path__, "content.physics."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                yield cls


def test_no_class_of_the_physics_runs_its_own_code_for_an_operator():
    written = {}
    for cls in _physics_classes():
        for name, member in vars(cls).items():
            code = getattr(member, "__code__", None)
            # dataclasses write __eq__, __repr__ and __hash__ themselves, outside the package
            if name in OPERATOR_METHODS and code is not None and code.co_filename.startswith(HERE):
                written.setdefault(cls.__name__, set()).add(name)
    assert set(written) <= READS_ITS_OWN_DATA, written
    assert len(list(_physics_classes())) > 20


def test_the_plan_reads_calls_and_attributes_only():
    reads = engine_lookups._reads
    assert reads(ast.parse("dtype(dt).bytes", mode="eval")) is None
    assert reads(ast.parse("acc.memory_bandwidth", mode="eval")) is None
    assert set(reads(ast.parse("w[0] * 2 if a < b else -a", mode="eval"))) == {"w", "a", "b"}
    assert reads(ast.parse("3 * 2", mode="eval")) == ()
