"""Prices and the measured memory-hierarchy figures are catalogs like the others: a variant that
reads one records it in its snapshot, so correcting a price or an on-chip bandwidth never reaches
an existing variant (its prompt, answers and grade stay), while a new variant takes the new
figure.  Every recorded figure keeps its source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from content.physics import (
    accelerator,
    format_number,
    format_quantity,
    memory_hierarchy,
    price,
    source,
)
from quizzes.engine import (
    Variant,
    generate_variant,
    grade_part,
    load_template_file,
    render_prompt,
    render_solution,
)
from tests.catalog_patching import patch_entry

QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "questions"


def _load(relative):
    return load_template_file(QUESTIONS / relative, root=QUESTIONS.parent)


@pytest.fixture(scope="module")
def cost():
    return _load("inference/cost-across-gpus.yaml")


@pytest.fixture(scope="module")
def hierarchical():
    return _load("roofline/roofline-hierarchical.yaml")


def _recorded(variant, kind):
    return {e["key"]: e["fields"] for e in variant.catalog["entries"] if e["kind"] == kind}


def _dearer(monkeypatch, *parts, factor=3.0):
    for part in parts:
        key = f"{accelerator(part).key}/specialist"
        patch_entry(
            monkeypatch, "price", key, dollars_per_hour=factor * price(part).dollars_per_hour
        )


def test_a_cost_variant_records_the_prices_it_read_with_their_sources(cost):
    variant = generate_variant(cost, 4)
    recorded = _recorded(variant, "price")
    for name in ("ga", "gb"):
        fields = recorded[f"{variant.params[name].key}/specialist"]
        assert fields["dollars_per_hour"] == price(variant.params[name]).dollars_per_hour
        assert source(fields["source"]).url  # the figure keeps its citation
    assert json.loads(json.dumps(variant.to_json()))["catalog"] == variant.catalog


def test_a_price_correction_leaves_an_old_cost_variant_alone(cost, monkeypatch):
    stored = generate_variant(cost, 4).to_json()
    old = Variant.from_json(stored)
    prompt, solution = render_prompt(cost, old), render_solution(cost, old)
    answers = dict(old.answers)
    ga, gb = old.params["ga"], old.params["gb"]
    _dearer(monkeypatch, ga, gb)
    assert price(ga).dollars_per_hour == pytest.approx(3 * old.params["pa"])

    again = Variant.from_json(stored)
    assert render_prompt(cost, again) == prompt
    assert render_solution(cost, again) == solution
    assert again.answers == answers
    with again.replaying():
        assert price(ga).dollars_per_hour == old.params["pa"]
    grade = grade_part(cost, again, "cost_a", f"{answers['cost_a']!r} USD")
    assert grade.status == "correct"

    new = generate_variant(cost, 4)
    assert new.params["ga"].key == ga.key  # the same draw, at the new price
    assert new.params["pa"] == pytest.approx(3 * old.params["pa"])
    assert new.answers["cost_a"] == pytest.approx(3 * answers["cost_a"])
    shown = f"| \\${format_number(new.params['pa'], 3)} |"
    assert shown in render_prompt(cost, new) and shown not in prompt
    assert _recorded(new, "price")[f"{ga.key}/specialist"]["dollars_per_hour"] == new.params["pa"]
    assert new.catalog["fingerprint"] != old.catalog["fingerprint"]


def test_a_hierarchical_variant_records_the_measured_levels_with_their_sources(hierarchical):
    variant = generate_variant(hierarchical, 9)
    recorded = _recorded(variant, "memory-level")
    assert recorded["h100-sxm/l2"]["bandwidth"] == memory_hierarchy("H100")[2].bandwidth
    assert recorded["h100-sxm/l1"]["bandwidth"] == memory_hierarchy("H100")[1].bandwidth
    for fields in recorded.values():
        for figure in ("size_bytes", "bandwidth", "latency"):
            if fields[figure] is not None:
                assert source(fields["sources"][figure]).url
    # HBM figures come from the accelerator's entry, which the snapshot holds too.
    assert ("accelerator", "h100-sxm") in {
        (e["kind"], e["key"]) for e in variant.catalog["entries"]
    }


def test_an_on_chip_bandwidth_correction_leaves_an_old_hierarchical_variant_alone(
    hierarchical, monkeypatch
):
    stored = generate_variant(hierarchical, 9).to_json()
    old = Variant.from_json(stored)
    prompt = render_prompt(hierarchical, old)
    answers = dict(old.answers)
    old_l2 = memory_hierarchy("H100")[2].bandwidth
    assert format_quantity(old_l2, "B/s") in prompt
    patch_entry(monkeypatch, "memory-level", "h100-sxm/l2", bandwidth=old_l2 / 4)
    assert memory_hierarchy("H100")[2].bandwidth == old_l2 / 4

    again = Variant.from_json(stored)
    assert render_prompt(hierarchical, again) == prompt
    assert again.answers == answers
    grade = grade_part(hierarchical, again, "rate", f"{answers['rate']!r} FLOP/s")
    assert grade.status == "correct"
    with again.replaying():
        assert memory_hierarchy("H100")[2].bandwidth == old_l2

    new = generate_variant(hierarchical, 9)
    assert new.params["b_l2"] == old_l2 / 4
    assert format_quantity(old_l2 / 4, "B/s") in render_prompt(hierarchical, new)
    assert _recorded(new, "memory-level")["h100-sxm/l2"]["bandwidth"] == old_l2 / 4


def test_the_h100_hierarchy_keeps_every_figure_and_its_source():
    levels = memory_hierarchy("H100")
    assert [lv.bandwidth for lv in levels] == [None, 132 * 128 * 1.83e9, 10e12, 3.35e12, 63e9]
    assert [lv.latency for lv in levels] == [None, 16e-9, 142e-9, 350e-9, None]
    assert levels[3].size_bytes == accelerator("H100").memory_bytes  # one home: the entry
    assert levels[4].size_bytes == 2e12
    for level in levels:
        for figure in ("size_bytes", "bandwidth", "latency"):
            if getattr(level, figure) is not None:
                assert source(level.sources[figure]).url, (level.name, figure)
