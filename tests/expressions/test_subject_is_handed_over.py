"""The expression language knows no subject: the caller hands it the names, trusted modules,
formatters and unit check (content/__init__.py hands over this book's physics)."""

from __future__ import annotations

import pytest

from content import subject
from content.expressions import configure_subject, default_namespace, evaluate, render_live
from content.expressions.limits import Limits, Number


@pytest.fixture
def another_subject():
    configure_subject(
        names={"double": lambda x: 2 * x},
        trusted_modules=(),
        format_number=lambda value, sig=3: f"<{value}>",
        format_quantity=lambda value, unit, **kw: f"<{value} {unit}>",
        check_unit=None,
        limits={"double": Limits(x=Number(-1e6, 1e6))},
    )
    yield
    subject.configure()


def test_another_subject_brings_its_own_names_and_formatters(another_subject):
    names = default_namespace()
    assert "double" in names and "ridge_point" not in names and "sqrt" in names
    assert evaluate("double(21)", names) == 42
    assert "<42>" in render_live("{{ double(21) }}", names=names).text


def test_this_books_subject_is_the_physics():
    names = default_namespace()
    assert callable(names["ridge_point"]) and callable(names["accelerator"])
