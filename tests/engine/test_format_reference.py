"""The format doc's reference is generated from the code and must not drift from it: every
function an expression may call, every catalog with its entries and fields (and units), every
answer kind's fields."""

from __future__ import annotations

import dataclasses

import pytest

from quizzes.engine import kinds, reference
from quizzes.engine.namespace import base_names
from quizzes.management.commands.format_reference import doc_path, with_reference


@pytest.fixture(scope="module")
def doc() -> str:
    return doc_path().read_text(encoding="utf-8")


def test_the_docs_reference_is_what_the_code_generates(doc):
    assert with_reference(doc) == doc, "run manage.py format_reference and commit the doc"


def test_a_new_function_would_make_the_doc_stale(doc, monkeypatch):
    current = reference.reference()
    extra = reference.Function("new_physics_function", "(x)", "A new function.")
    monkeypatch.setattr(
        reference,
        "reference",
        lambda: dataclasses.replace(current, functions=(*current.functions, extra)),
    )
    assert with_reference(doc) != doc


def test_every_callable_name_every_catalog_field_and_every_kind_is_in_the_doc(doc):
    section = doc.split("## Reference", 1)[1]
    for name, value in base_names().items():
        if callable(value) and not isinstance(value, type):
            assert f"| `{name}(" in section, name
    for catalog in reference.reference().catalogs:
        assert f"#### `{catalog.name}(name)`" in section
        for field in catalog.fields:
            assert f"| `{field.name}` |" in section
    for kind in kinds.all_kinds():  # in its own section, whose example the doc test validates
        assert f"    kind: {kind.name}\n" in doc


def test_every_figure_of_a_catalog_has_a_unit():
    for catalog in reference.reference().catalogs:
        for field in catalog.fields:
            if "float" in field.type:
                assert field.unit not in ("count", "text", "list"), (catalog.name, field.name)


def test_the_editors_completion_data_comes_from_the_same_reference():
    data = reference.as_json()
    assert {f["name"] for f in data["functions"]} >= {"ridge_point", "attainable_flops", "sqrt"}
    assert "h100-sxm" in data["catalogs"]["accelerator"]["entries"]
    fields = {f["name"]: f["unit"] for f in data["catalogs"]["accelerator"]["fields"]}
    assert fields["memory_bandwidth"] == "B/s" and fields["memory_bytes"] == "B"
    assert set(data["kinds"]) == set(kinds.kind_names())
