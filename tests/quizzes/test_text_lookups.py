"""A draw keeps the catalog entries its texts look up once per distinct values
(`engine.variants.text_lookups`): the snapshot is the one a draw rendering every text gives,
for every template of the bank; students whose numbers coincide share one rendering; a
corrected catalog figure or a new template object is never served the old entries."""

from __future__ import annotations

from pathlib import Path

import pytest

import content
from content.physics import accelerator
from quizzes.engine import generate_variant, load_template_file, template_paths
from quizzes.engine import variants as engine_variants
from tests.catalog_patching import patch_entry

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)
SEEDS = (1, 2, 3, 17, 40)


@pytest.fixture(autouse=True)
def empty_memo():
    engine_variants.clear_text_lookups()
    yield
    engine_variants.clear_text_lookups()


def _rendered_texts(monkeypatch) -> list[str]:
    """Count the renders of every text (the work the memo saves), by template slug."""
    calls: list[str] = []
    touch = engine_variants._touch_texts

    def counting(template, variant):
        calls.append(template.slug)
        return touch(template, variant)

    monkeypatch.setattr(engine_variants, "_touch_texts", counting)
    return calls


def test_every_template_stores_the_same_snapshot_with_the_memo():
    """Each bank template's variants, drawn with the memo warm (a second draw of the same seed
    reads the kept entries), store exactly the snapshot of a draw that renders every text."""
    checked = 0
    for path in PATHS:
        template = load_template_file(path, root=QUESTIONS.parent)
        for seed in SEEDS:
            engine_variants.clear_text_lookups()
            fresh = generate_variant(template, seed)
            kept = generate_variant(template, seed)  # its texts' entries from the memo
            assert kept.catalog == fresh.catalog, (path.stem, seed)
            assert kept.to_json() == fresh.to_json(), (path.stem, seed)
            checked += 1
    assert checked == len(PATHS) * len(SEEDS) > 100


def _coinciding_seeds(template, wanted: int = 2) -> list[int]:
    """Seeds whose variants have the same values (a template with few choices gives some)."""
    by_values: dict[str, list[int]] = {}
    for seed in range(400):
        variant = generate_variant(template, seed, record_texts=False)
        same = by_values.setdefault(engine_variants._values_key(variant), [])
        same.append(seed)
        if len(same) == wanted:
            return same
    raise AssertionError(f"no {wanted} coinciding seeds for {template.slug}")


def _template_with_catalog_texts():
    """A bank template whose snapshot holds an accelerator entry, with two coinciding seeds."""
    for path in PATHS:
        template = load_template_file(path, root=QUESTIONS.parent)
        variant = generate_variant(template, 1)
        kinds = {e["kind"] for e in variant.catalog["entries"]}
        if "accelerator" in kinds:
            try:
                return template, _coinciding_seeds(template)
            except AssertionError:
                continue
    raise AssertionError("no bank template looks up an accelerator with few choices")


def test_coinciding_numbers_render_the_texts_once(monkeypatch):
    template, (first, second) = _template_with_catalog_texts()
    calls = _rendered_texts(monkeypatch)
    one = generate_variant(template, first)
    other = generate_variant(template, second)
    assert calls == [template.slug]  # the second student's draw rendered nothing
    assert other.catalog == one.catalog
    assert other.seed != one.seed


def test_a_corrected_figure_is_recorded_afresh(monkeypatch):
    template, (first, second) = _template_with_catalog_texts()
    before = generate_variant(template, first)
    name = next(e["key"] for e in before.catalog["entries"] if e["kind"] == "accelerator")
    old = accelerator(name)
    patch_entry(monkeypatch, "accelerator", old.key, memory_bandwidth=3 * old.memory_bandwidth)
    calls = _rendered_texts(monkeypatch)
    after = generate_variant(template, second)
    assert calls == [template.slug]  # the catalog's fingerprint changed: no kept entries
    stored = next(
        e["fields"]
        for e in after.catalog["entries"]
        if e["kind"] == "accelerator" and e["key"] == name
    )
    assert stored["memory_bandwidth"] == 3 * old.memory_bandwidth
    assert after.catalog["fingerprint"] != before.catalog["fingerprint"]


def test_a_new_template_object_is_not_served_another_ones_entries(monkeypatch):
    template, (first, _) = _template_with_catalog_texts()
    generate_variant(template, first)
    again = load_template_file(
        next(
            p for p in PATHS if load_template_file(p, root=QUESTIONS.parent).slug == template.slug
        ),
        root=QUESTIONS.parent,
    )
    calls = _rendered_texts(monkeypatch)
    generate_variant(again, first)
    assert calls == [template.slug]


def test_the_memo_is_bounded():
    assert engine_variants._text_lookups.maxsize == engine_variants.TEXT_LOOKUPS_KEPT <= 10_000
