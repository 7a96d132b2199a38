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
