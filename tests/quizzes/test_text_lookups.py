"""A draw learns the catalog entries its texts look up from their expressions
(`engine.lookups`) instead of rendering every text: for every template of the bank, at several
seeds, the variant it stores (its snapshot above all) is the one a draw rendering every text
stores; the plan reads every text the full render renders; and most of the bank is drawn
without rendering a text (the hostile cases are in tests/engine/test_lookups.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import content
from content.expressions import live
from quizzes.engine import generate_variant, load_template_file, restamp, template_paths
from quizzes.engine import lookups as engine_lookups
from quizzes.engine import variants as engine_variants
from quizzes.engine.render import render_everything

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)
SEEDS = (1, 2, 3, 17, 40)


@pytest.fixture(scope="module")
def bank():
    return [load_template_file(path, root=QUESTIONS.parent) for path in PATHS]


def _entries(variant) -> set[tuple[str, str]]:
    return {(e["kind"], e["key"]) for e in variant.catalog["entries"]}


def test_every_template_stores_the_snapshot_of_a_draw_that_renders_every_text(bank, monkeypatch):
    renders: list[str] = []
    touch = engine_variants._touch_texts

    def counting(template, variant):
        renders.append(template.slug)
        return touch(template, variant)

    monkeypatch.setattr(engine_variants, "_touch_texts", counting)
    checked, texts_added = 0, 0
    for template in bank:
        for seed in SEEDS:
            variant = generate_variant(template, seed)
            with monkeypatch.context() as old_way:
                old_way.setattr(engine_lookups, "looked_up", lambda template, variant: None)
                rendered = generate_variant(template, seed)
            assert variant.catalog == rendered.catalog, (template.slug, seed)
            assert variant.to_json() == rendered.to_json(), (template.slug, seed)
            drawn_only = generate_variant(template, seed, record_texts=False)
            texts_added += bool(_entries(variant) - _entries(drawn_only))
            checked += 1
    assert checked == len(bank) * len(SEEDS) > 800
    # Not an empty comparison: many variants hold entries only their texts look up.
    assert texts_added > 100
    # One full render per comparison; a new draw renders only where its plan says so.
    full = {t.slug for t in bank if t.text_plan.render}
    assert len(renders) == checked + len(full) * len(SEEDS)
    assert len(full) < len(bank) / 5


def test_a_restamp_records_the_texts_entries_as_rendering_them_does(bank, monkeypatch):
    for template in bank[::7]:
        variant = generate_variant(template, 3)
        fresh = restamp(template, variant)
        with monkeypatch.context() as old_way:
            old_way.setattr(engine_lookups, "looked_up", lambda template, variant: None)
            rendered = restamp(template, variant)
        assert fresh.to_json() == rendered.to_json(), template.slug


def test_the_plan_holds_every_text_the_full_render_renders(bank, monkeypatch):
    """Each text that rendering a variant scans for live values is one the plan read."""
    scanned: list[str] = []
    scan = live.scan_live

    def recording(text, **kwargs):
        scanned.append(text)
        return scan(text, **kwargs)

    monkeypatch.setattr(live, "scan_live", recording)
    planned = 0
    for template in bank:
        if template.text_plan.render:
            continue
        planned += 1
        read = {text.text for text, _ in engine_lookups._texts(template)}
        scanned.clear()
        render_everything(template, generate_variant(template, 2))
        assert scanned and set(scanned) <= read, template.slug
    assert planned > 100


def test_a_template_with_a_figure_or_a_roofline_part_renders_every_text(bank):
    special = {
        t.slug
        for t in bank
        if t.figure is not None or any(p.kind == "roofline_point" for p in t.parts)
    }
    assert special and {t.slug for t in bank if t.text_plan.render} == special
