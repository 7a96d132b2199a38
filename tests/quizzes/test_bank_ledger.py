"""The review ledger (docs/bank-review-ledger.md) stays honest about the bank it describes.

Every template it names exists (a name in backticks with a hyphen is a template slug or a
diagnosis code), every first-edition template has its row, and a template it calls retired is
gone from the bank and from every quiz.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from quizzes.engine import DIAGNOSIS_CODES

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "docs" / "bank-review-ledger.md"
QUESTIONS = ROOT / "content" / "questions"
NAME = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")


def _slugs():
    # The slug line of each template file: the whole bank's parse (formulas checked with the
    # algebra engine) takes many seconds, and the ledger needs only the names.
    return {
        re.search(r"^slug: *([a-z0-9-]+)", path.read_text(encoding="utf-8"), re.M).group(1)
        for path in QUESTIONS.rglob("*.yaml")
        if "quizzes" not in path.relative_to(QUESTIONS).parts
    }


def _quiz_templates():
    """{quiz file: every template its items and pools name}."""
    named = {}
    for path in (QUESTIONS / "quizzes").glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = data.get("items") or []
        named[path.name] = {i["template"] for i in items if "template" in i} | {
            slug for i in items for slug in i.get("templates", [])
        }
    return named


@pytest.fixture(scope="module")
def ledger():
    return LEDGER.read_text(encoding="utf-8")


def test_every_name_the_ledger_uses_is_a_template_or_a_diagnosis_code(ledger):
    unknown = sorted(set(NAME.findall(ledger)) - _slugs() - set(DIAGNOSIS_CODES))
    assert not unknown, f"the ledger names what the bank does not have: {unknown}"


def test_every_first_edition_template_has_its_row(ledger):
    rows = re.findall(r"^\| R2-(\d+) \| `([a-z0-9-]+)`", ledger, re.M)
    assert [int(n) for n, _ in rows] == list(range(1, 76))
    assert len({slug for _, slug in rows}) == 75


def test_a_retired_template_is_gone_from_the_bank_and_every_quiz(ledger):
    retired = set(re.findall(r"^- retired: ([a-z0-9-]+)$", ledger, re.M))
    assert not retired & _slugs()
    for name, templates in _quiz_templates().items():
        assert not retired & templates, name
    # The quiz reader is exercised too, so a quiz file without items would show here.
    assert all(_quiz_templates().values())


# The third-edition review's lists (shared/reviews/2026-12-06/bank-review.md), as the review
# counts them: each item must have its own row, naming its template.
THIRD_REVIEW_ROWS = {
    **{f"T-E{n}": None for n in range(1, 5)},
    "T-I1": "link-ridge-point",
    "T-I2": "fsdp-allgather-traffic",
    "T-I3": "fp16-loss-scaling",
    "T-I4": "link-transfer-time",
    "T-I5": "gpus-coalescing",
    "T-I6": "moe-alltoall-time",
    "T-I7": "decode-upgrade-choice",
    **{f"T-M{n}": None for n in range(1, 7)},
    **{f"T-U{n}": None for n in range(1, 9)},
    **{f"T-W{n}": None for n in range(1, 7)},
    **{f"T-K{n}": None for n in range(1, 10)},
    "T-M5a": "decode-upgrade-choice",
    "T-M5b": "quant-method-choice",
    "T-M5c": "checkpoint-format-from-size",
    "T-M5d": "batch-doubling-what-breaks",
    "T-M5e": "max-batch-under-latency",
    "T-M5f": "weight-load-over-pcie",
    "T-M5g": "gpus-tensor-core-amdahl",
    "T-M5h": "tp-decode-allreduce-latency",
    "T-W1a": "batched-decode-throughput",
    "T-W1b": "gpus-cpu-versus-gpu",
    "T-W1c": "gpus-peak-from-clock",
    "T-W1d": "intro-latency-and-throughput",
    "T-W1e": "intro-overlap-compute-and-memory",
    "T-W1f": "intro-what-speeds-up-a-token",
    "T-W1g": "roofline-attention-intensity",
    "T-W1h": "roofline-skinny-product",
    "T-W1i": "roofline-tile-intensity",
    "T-W4a": "intro-compute-outran-bandwidth",
    "T-W4b": "intro-energy-per-token",
    "T-W4c": "intro-flops-per-byte-of-a-chip",
    "T-W4d": "intro-token-floor-memory-vs-compute",
    "T-W4e": "gpus-offload-over-pcie",
    "T-W4f": "gpus-tensor-core-amdahl",
    "T-W4g": "gpus-tensor-core-speedup",
    "T-W4h": "gpus-warp-divergence",
    "T-W4i": "roofline-batched-matvec",
    "T-W4j": "roofline-fusion-epilogue",
    "T-W4k": "roofline-softmax-fusion",
    "T-W4l": "weight-load-over-pcie",
}


def test_every_item_of_the_third_reviews_lists_has_its_own_row(ledger):
    rows = {
        m.group(1): m.group(2) for m in re.finditer(r"^\| (T-[A-Z]\d+[a-z]?) \|(.*)$", ledger, re.M)
    }
    missing = sorted(set(THIRD_REVIEW_ROWS) - set(rows))
    assert not missing, f"no ledger row for {missing}"
    wrong = [i for i, slug in THIRD_REVIEW_ROWS.items() if slug and f"`{slug}`" not in rows[i]]
    assert not wrong, f"rows not naming the review's template: {wrong}"
    # 7 impossible templates, 8 codes, 9 fixed keys, 12 tags: the review's counts
    for pattern, count in ((r"T-I\d", 7), (r"T-M5[a-z]", 8), (r"T-W1[a-z]", 9), (r"T-W4[a-z]", 12)):
        items = [i for i in rows if re.fullmatch(pattern, i)]
        assert len(items) == count, f"{pattern}: {items}"


def test_every_near_duplicate_cluster_of_the_third_review_has_its_row(ledger):
    section = ledger.split("### The ten near-duplicate clusters", 1)[1].split("###", 1)[0]
    assert re.findall(r"^\| (\d+) \|", section, re.M) == [str(n) for n in range(1, 11)]


# The new-templates review (reviews/bank-new-templates.md): every finding has its row.
NEW_TEMPLATES_REVIEW_ROWS = {
    "B-E0": None,
    **{f"B-P{n}": None for n in range(1, 5)},
    **{f"B-T{n}": None for n in range(1, 8)},
    **{f"B-M{n}": None for n in range(1, 10)},
    **{f"B-D{n}": None for n in range(1, 6)},
    **{f"B-S{n}": None for n in range(1, 17)},
    "B-P1": "paged-kv-reservation",
    "B-P2": "allreduce-estimate",
    "B-M1": "chunked-prefill-stall",
    "B-M9": "interconnect-explain-tp-latency",
    "B-D1": "chunked-prefill-stall",
    "B-D2": "moe-bytes-at-batch",
    "B-D3": "fp8-format-by-use",
}


def test_every_finding_of_the_new_templates_review_has_its_row(ledger):
    rows = dict(re.findall(r"^\| (B-[A-Z]\d+) \| ([^|]*) \|", ledger, re.M))
    missing = sorted(set(NEW_TEMPLATES_REVIEW_ROWS) - set(rows))
    assert not missing, f"no ledger row for {missing}"
    for finding, slug in NEW_TEMPLATES_REVIEW_ROWS.items():
        if slug:
            assert f"`{slug}`" in rows[finding], finding
