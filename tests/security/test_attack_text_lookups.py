"""Attacks on a new variant's look-ups learnt from its texts' expressions (`engine.lookups`,
perf-i) instead of rendering every text, as a hostile author.

The draw's snapshot must hold every catalog entry a text can look up, or a later render of the
variant reads figures it was not drawn with. An author hides a look-up in every live text of
every kind's starter, one place at a time (prompt, part prompt, option, option feedback, item,
category, rubric, model answer, common-error feedback, hint, solution, even the title), and in
expressions shaped to slip past a plan that skips names: a list of catalog entries read by
subscript, a string parameter that shadows a physics function, a catalog entry printed whole in
a part prompt, a look-up behind a condition or in a text too long to be cached, an expression
that fails for some seeds. Each is drawn both ways at several seeds and the stored variants
compared whole."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from content.physics import link
from quizzes.engine import generate_variant, parse_template, restamp
from quizzes.engine import lookups as engine_lookups
from quizzes.engine.errors import TemplateError

KINDS = Path(__file__).resolve().parents[2] / "quizzes" / "engine" / "kinds"
STARTERS = sorted(KINDS.glob("*/starter.yaml"))
TEXT_KEYS = {"prompt", "solution", "text", "feedback", "model_answer", "title"}
LOOK_UP = ' {{ link("nvlink4").bandwidth | B/s }}'
SEEDS = (1, 2, 3)


def _entries(variant) -> set[tuple[str, str]]:
    return {(e["kind"], e["key"]) for e in variant.catalog["entries"]}


def _full_render(monkeypatch, template, seed):
    """The draw as it was before perf-i: every text rendered to record its look-ups."""
    with monkeypatch.context() as patched:
        patched.setattr(engine_lookups, "looked_up", lambda template, variant: None)
        return generate_variant(template, seed)


def _places(node, path=()):
    """The path of every string under a text key of a starter's YAML."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in TEXT_KEYS and isinstance(value, str):
                yield (*path, key)
            else:
                yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _places(value, (*path, index))


def _with_look_up(data, place):
    data = copy.deepcopy(data)
    node = data
    for step in place[:-1]:
        node = node[step]
    node[place[-1]] = node[place[-1]].rstrip("\n") + LOOK_UP
    return data


CASES = [
    (starter.parent.name, place)
    for starter in STARTERS
    for place in _places(yaml.safe_load(starter.read_text()))
]


def test_the_starters_give_every_kind_of_text():
    kinds = {kind for kind, _ in CASES}
    assert len(kinds) == len(STARTERS) >= 8
    last = {place[-1] for _, place in CASES}
    assert {"prompt", "solution", "text", "feedback", "model_answer"} <= last


@pytest.mark.parametrize(
    ("kind", "place"), CASES, ids=[f"{k}:{'.'.join(map(str, p))}" for k, p in CASES]
)
def test_a_look_up_hidden_in_any_text_of_any_kind_is_stored_as_rendering_stores_it(
    monkeypatch, kind, place
):
    data = _with_look_up(yaml.safe_load((KINDS / kind / "starter.yaml").read_text()), place)
    try:
        template = parse_template(yaml.safe_dump(data, sort_keys=False), source=f"{kind}.yaml")
    except Exception:  # noqa: BLE001 - a place that may not hold an expression (a title)
        assert place[-1] == "title", place
        return
    assert template.text_plan.render == (kind == "roofline_point")  # the plan is what is attacked
    wanted = ("link", link("nvlink4").key)
    for seed in SEEDS:
        variant = generate_variant(template, seed)
        rendered = _full_render(monkeypatch, template, seed)
        assert variant.to_json() == rendered.to_json(), (kind, place, seed)
        if wanted in _entries(rendered):
            assert wanted in _entries(variant)
        elif place[-1] != "title":  # a title is not live text: nothing to look up
            pytest.fail(f"the full render did not look up {place} either")


BASE = """\
slug: hostile-names
title: Look-ups behind names
chapter: inference
objectives: [Look things up]
difficulty: 2
parameters:
  acc: {{choice: [A100, H100], catalog: accelerator}}
  size: {{range: [10, 40], step: 10}}
  gpu: {{choice: [H200, B200]}}
  {extra}
prompt: |
  {prompt}
parts:
  - id: t
    kind: numeric
    prompt: |
      {part_prompt}
    answer: "size * 1.0e9 / acc.memory_bandwidth"
    unit: s
    plausible: [1.0e-5, 1.0]
hints:
  - after: 1
    text: |
      {hint}
solution: |
  {solution}
"""
PLAIN = {
    "extra": "",
    "prompt": "Move {{ size }} GB.",
    "part_prompt": "How long?",
    "hint": "Divide.",
    "solution": "It takes {{ part_t | s }}.",
}
NAME_TRICKS = {
    # A catalog entry printed whole and as text in the prompt, which cites it.
    "entry printed": {"prompt": "Move {{ size }} GB on the {{ acc | text }} ({{ acc }})."},
    # A catalog entry printed whole where no citation is collected (a part's prompt).
    "entry in a part prompt": {"part_prompt": "On the {{ acc }}, how long?"},
    # A string parameter naming an entry, looked up in a hint.
    "string looked up": {"hint": "The {{ gpu }} moves {{ accelerator(gpu).memory_bandwidth }}."},
    # Behind a condition on the variant's numbers: some seeds look it up, some do not.
    "conditional": {
        "solution": 'It takes {{ part_t | s }}; {{ accelerator("H200").memory_bandwidth '
        "if size > 20 else 0 | B/s }}."
    },
    # Fails for one size (a division by zero): that variant takes the full render.
    "failing for one seed": {
        "hint": '{{ accelerator("B200").memory_bandwidth / (size - 20) | B/s }}.'
    },
    # A method of a catalog parameter in a part prompt (which cites nothing).
    "method in a part prompt": {"part_prompt": "At {{ acc.peak('fp32') | FLOP/s }}, how long?"},
    # A text past the scanner's cache (4,000 characters, 64 spans) with its look-up at the end.
    "uncached text": {
        "prompt": "Move {{ size }} GB. "
        + "{{ size }} " * 80
        + "x" * 4000
        + ' {{ accelerator("H200").memory_bandwidth | B/s }}.'
    },
    # A string naming an entry, printed in a citing text: text, no entry touched.
    "string printed": {"solution": "On the {{ gpu | text }}: {{ part_t | s }}."},
    # One entry read in a part prompt (cites nothing) and again in a citing text: the second
    # must still cite it, whatever the first evaluation left behind.
    "one entry twice": {
        "part_prompt": 'At {{ accelerator("H200").peak("fp32") | FLOP/s }}, how long?',
        "solution": 'It takes {{ part_t | s }}; {{ accelerator("H200").memory_bandwidth | B/s }}.',
    },
    # A list of entries' names (a stored value may not be an entry), read by subscript.
    "list of names": {
        "extra": "pair: {value: \"['H200', 'B200']\"}",
        "prompt": "Move {{ size }} GB to the {{ pair[1] }} at "
        "{{ accelerator(pair[0]).memory_bandwidth | B/s }}.",
    },
}


@pytest.mark.parametrize("trick", sorted(NAME_TRICKS))
def test_names_subscripts_conditions_and_failures_store_what_rendering_stores(monkeypatch, trick):
    texts = {**PLAIN, **NAME_TRICKS[trick]}
    try:
        template = parse_template(BASE.format(**texts), source="hostile-names.yaml")
    except TemplateError as refused:
        pytest.fail(f"a trick the format refuses tests nothing: {refused}")
    assert not template.text_plan.render  # the plan is what is attacked
    for seed in range(6):
        variant = generate_variant(template, seed)
        assert variant.to_json() == _full_render(monkeypatch, template, seed).to_json(), seed
        # A regrade's restamp learns them the same way.
        again = restamp(template, variant)
        with monkeypatch.context() as old_way:
            old_way.setattr(engine_lookups, "looked_up", lambda template, variant: None)
            assert again.to_json() == restamp(template, variant).to_json(), seed


def test_a_parameter_cannot_shadow_a_function_that_looks_up():
    """A plan that skips plain names would miss `{{ link }}` were `link` a string parameter in
    one place and the physics function in another: the format refuses the name."""
    shadow = BASE.replace("  {extra}", "  link: {{choice: [nvlink4, pcie5]}}").format(**PLAIN)
    with pytest.raises(TemplateError, match="already a function"):
        parse_template(shadow, source="hostile-names.yaml")


def test_a_look_up_in_a_formulas_answer_is_the_draws_own(monkeypatch):
    """A formula's `answer` may hold live expressions; they are evaluated with the answer (the
    draw's own recording), not as a text: the entry is stored with or without texts."""
    starter = yaml.safe_load((KINDS / "formula" / "starter.yaml").read_text())
    starter["parts"][0]["answer"] = '2 * {{ k * link("nvlink4").bandwidth / 1e9 }} * m * n'
    template = parse_template(yaml.safe_dump(starter, sort_keys=False), source="formula.yaml")
    wanted = ("link", link("nvlink4").key)
    for seed in SEEDS:
        variant = generate_variant(template, seed)
        assert variant.to_json() == _full_render(monkeypatch, template, seed).to_json()
        assert wanted in _entries(generate_variant(template, seed, record_texts=False))
