"""The misconceptions catalogue: every diagnosis code has an entry pointing at a real section."""

from __future__ import annotations

from pathlib import Path

import pytest

from content.misconceptions import load_misconceptions, misconception, misconceptions
from courseware.rendering import heading_anchors, split_front_matter

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"


def _chapters() -> dict[str, set[str]]:
    anchors = {}
    for path in BOOK.glob("*.md"):
        parsed = split_front_matter(path.read_text(), source=path.name)
        anchors[parsed.meta["slug"]] = set(heading_anchors(parsed.body))
    return anchors


@pytest.mark.parametrize("entry", misconceptions(), ids=lambda m: m.code)
def test_every_misconception_points_at_an_existing_section(entry):
    chapters = _chapters()
    assert entry.chapter in chapters, f"{entry.code}: no chapter '{entry.chapter}'"
    assert entry.anchor in chapters[entry.chapter], (
        f"{entry.code}: no heading #{entry.anchor} in {entry.chapter}"
    )


def test_every_diagnosis_code_of_the_engine_has_an_entry():
    from quizzes.engine.codes import DIAGNOSIS_CODES

    missing = sorted(set(DIAGNOSIS_CODES) - {m.code for m in misconceptions()})
    assert missing == []


def test_the_anchors_the_writers_were_asked_for_exist():
    asked = {
        "units",
        "dense-and-sparse-peaks",
        "memory-hierarchy",
        "arithmetic-intensity",
        "counting-flops",
        "ridge-point",
        "batching",
        "kv-cache",
        "mixture-of-experts",
        "bits-and-bytes",
        "bytes-per-parameter",
        "splitting-a-model",
        "per-direction-bandwidth",
    }
    found = set().union(*_chapters().values())
    assert asked - found == set()


def test_lookup_by_code_and_a_helpful_miss():
    assert misconception("kv-no-two").anchor == "kv-cache"
    with pytest.raises(KeyError, match="kv-no-two"):
        misconception("kv-no-tow")


def test_entries_have_one_sentence_explanations():
    for entry in misconceptions():
        assert entry.title and entry.explanation.endswith(".")


def test_a_file_with_a_missing_field_is_refused(tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text("x-code:\n  title: T\n  chapter: c\n  anchor: a\n")
    with pytest.raises(ValueError, match="explanation"):
        load_misconceptions(bad)
