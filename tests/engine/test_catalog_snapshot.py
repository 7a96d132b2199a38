"""A variant carries the catalog figures it used: its prompt, its answers and its feedback always
come from that snapshot, and only an explicit restamp moves it to corrected figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from content.physics import accelerator, format_quantity, weights_bytes
from content.physics.catalog import snapshot as catalog_snapshot
from quizzes.engine import (
    Variant,
    catalog_digest,
    generate_variant,
    grade_part,
    load_template_file,
    render_prompt,
    render_solution,
    restamp,
)
from tests.catalog_patching import patch_entry

QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "questions"
PARTS = ("A100", "H100", "H200")


@pytest.fixture(scope="module")
def template():
    return load_template_file(
        QUESTIONS / "examples" / "decode-step-memory-floor.yaml", root=QUESTIONS.parent
    )


def _faster_memory(monkeypatch):
    """Every accelerator the template can draw gets memory twice as fast."""
    for name in PARTS:
        acc = accelerator(name)
        patch_entry(monkeypatch, "accelerator", acc.key, memory_bandwidth=2 * acc.memory_bandwidth)


def _shown_bandwidth(variant) -> str:
    return format_quantity(variant.params["acc"].memory_bandwidth, "B/s")


def test_a_variant_snapshots_the_entries_it_used_with_the_catalog_fingerprint(template):
    variant = generate_variant(template, 7)
    snap = variant.to_json()["catalog"]
    assert snap["fingerprint"] == catalog_snapshot.fingerprint()
    kinds = {(e["kind"], e["key"]) for e in snap["entries"]}
    assert ("accelerator", variant.params["acc"].key) in kinds
    assert ("model", variant.params["m"].key) in kinds
    # Only the accepted draw's entries: one accelerator, the one the prompt shows.
    assert sum(kind == "accelerator" for kind, _ in kinds) == 1


def test_the_snapshot_round_trips_every_field_exactly(template):
    variant = generate_variant(template, 11)
    text = json.dumps(variant.to_json())
    again = Variant.from_json(text)
    assert again == variant
    assert again.params["acc"] == accelerator(variant.params["acc"].key)
    assert again.catalog == variant.catalog


@pytest.mark.parametrize("seed", range(6))
def test_same_seed_same_variant_and_snapshot(template, seed):
    assert generate_variant(template, seed).to_json() == generate_variant(template, seed).to_json()


def test_an_old_variant_keeps_its_figures_and_answers_after_a_catalog_correction(
    template, monkeypatch
):
    old = generate_variant(template, 3).to_json()
    old_prompt = render_prompt(template, Variant.from_json(old))
    old_bandwidth = _shown_bandwidth(Variant.from_json(old))
    _faster_memory(monkeypatch)
    stored = Variant.from_json(old)
    # The prompt shows the figures the answer was computed from, not today's catalog.
    assert render_prompt(template, stored) == old_prompt
    assert old_bandwidth in old_prompt
    acc, m, dt = stored.params["acc"], stored.params["m"], stored.params["dt"]
    assert stored.answers["t"] == pytest.approx(weights_bytes(m, dt) / acc.memory_bandwidth)
    assert acc.memory_bandwidth != accelerator(acc.key).memory_bandwidth
    assert old_bandwidth.split()[0] in render_solution(template, stored)
    # Grading and feedback read the snapshot too: the stored answer is still correct.
    answer = f"{stored.answers['t']!r} s"
    assert grade_part(template, stored, "t", answer).status == "correct"
    slip = stored.common_errors["t"]["bits-for-bytes"]
    assert grade_part(template, stored, "t", f"{slip!r} s").diagnosis == "bits-for-bytes"


def test_a_new_variant_uses_the_corrected_figures(template, monkeypatch):
    before = generate_variant(template, 3)
    _faster_memory(monkeypatch)
    after = generate_variant(template, 3)
    assert after.params["acc"].key == before.params["acc"].key  # same draw
    assert after.params["acc"].memory_bandwidth == 2 * before.params["acc"].memory_bandwidth
    assert after.answers["t"] == pytest.approx(before.answers["t"] / 2)
    assert _shown_bandwidth(after) in render_prompt(template, after)
    assert after.catalog["fingerprint"] != before.catalog["fingerprint"]
    assert catalog_digest(after.catalog) != catalog_digest(before.catalog)


def test_restamp_is_the_explicit_move_to_corrected_figures(template, monkeypatch):
    old = Variant.from_json(generate_variant(template, 5).to_json())
    _faster_memory(monkeypatch)
    moved = restamp(template, old)
    assert moved.seed == old.seed and moved.params["m"] == old.params["m"]
    assert moved.params["acc"] == accelerator(old.params["acc"].key)
    assert moved.answers["t"] == pytest.approx(old.answers["t"] / 2)
    assert moved.catalog["fingerprint"] == catalog_snapshot.fingerprint()
    assert _shown_bandwidth(moved) in render_prompt(template, moved)
    assert render_prompt(template, moved) != render_prompt(template, old)


def test_a_variant_stored_before_snapshots_reads_the_live_catalog(template, monkeypatch):
    legacy = generate_variant(template, 3).to_json()
    del legacy["catalog"]
    live_before = catalog_digest(None)
    _faster_memory(monkeypatch)
    variant = Variant.from_json(legacy)
    assert variant.catalog is None
    assert _shown_bandwidth(variant) in render_prompt(template, variant)
    # Its cache key follows the live catalog, so no page rendered from other figures is reused.
    assert catalog_digest(None) != live_before


def test_replay_resolves_names_inside_physics_functions(monkeypatch):
    with catalog_snapshot.recording() as used:
        weights_bytes("llama-2-7b", "fp16")
    snap = catalog_snapshot.snapshot(used)
    patch_entry(monkeypatch, "dtype", "fp16", bytes=4)
    assert weights_bytes("llama-2-7b", "fp16") == 4 * 6738415616
    with catalog_snapshot.using(snap):
        assert weights_bytes("llama-2-7b", "fp16") == 2 * 6738415616


def test_a_snapshot_older_than_a_new_catalog_field_keeps_its_figures(template):
    snap = generate_variant(template, 2).catalog
    for entry in snap["entries"]:
        if entry["kind"] == "accelerator":
            del entry["fields"]["memory_type"]  # as if taken before the field existed
            entry["fields"]["memory_bandwidth"] = 1.0e12
    rebuilt = catalog_snapshot.entries(snap)
    acc = next(e for (kind, _), e in rebuilt.items() if kind == "accelerator")
    assert acc.memory_bandwidth == 1.0e12
    assert acc.memory_type == accelerator(acc.key).memory_type
