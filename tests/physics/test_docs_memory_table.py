"""docs/physics.md's device-memory table states the catalog's figures, so the two cannot drift."""

import re
from pathlib import Path

import pytest

from content.physics import accelerator, accelerators, format_quantity

DOC = Path(__file__).resolve().parents[2] / "docs" / "physics.md"


def _rows():
    text = DOC.read_text()
    section = text.split("### Device memory: the label and the reported capacity", 1)[1]
    section = section.split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([\w.-]+)` \| ([^|]+) \| ([^|]+) \|", line)
        if match:
            rows[match.group(1)] = (match.group(2).strip(), match.group(3).strip())
    return rows


def test_the_table_lists_every_accelerator():
    assert set(_rows()) == {a.key for a in accelerators()}


@pytest.mark.parametrize("key", [a.key for a in accelerators()])
def test_each_row_matches_the_catalog(key):
    label, reported = _rows()[key]
    acc = accelerator(key)
    assert label == format_quantity(acc.memory_label_bytes, "B", sig=4)
    if acc.memory_reported_published:
        assert reported.startswith(f"{acc.memory_bytes / 2**20:,.0f} MiB = ")
    else:
        assert reported.startswith("not published")


def test_the_conventions_no_longer_call_hbm_capacity_decimal():
    text = DOC.read_text()
    assert "HBM capacity stays decimal" not in text
    assert "81,559 MiB" in text and "79.6 GiB" in text
