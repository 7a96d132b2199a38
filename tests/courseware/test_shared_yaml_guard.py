"""One YAML guard for everything people write: chapter front matter gets the same refusals and
bounds as template and quiz files (anchors, size, nesting, entries, long values)."""

from __future__ import annotations

import pytest

from content import plainyaml
from courseware.rendering import ContentError, split_front_matter
from quizzes.engine import yamlnodes


def test_the_engine_and_the_chapter_reader_share_the_guard():
    assert yamlnodes.check_plain is plainyaml.check_plain


def test_front_matter_nested_too_deep_is_refused_with_its_line():
    deep = "x: " + "[" * (plainyaml.MAX_DEPTH + 2) + "]" * (plainyaml.MAX_DEPTH + 2) + "\n"
    with pytest.raises(ContentError) as refused:
        split_front_matter("---\nslug: c\ntitle: C\n" + deep + "---\nBody\n", source="c.md")
    assert "nested more than" in refused.value.message and refused.value.line == 4


def test_front_matter_with_a_huge_value_is_refused():
    value = "x" * (plainyaml.MAX_SCALAR_CHARS + 1)
    with pytest.raises(ContentError) as refused:
        split_front_matter(f"---\nslug: c\ntitle: {value}\n---\nBody\n", source="c.md")
    assert "longer than" in refused.value.message
