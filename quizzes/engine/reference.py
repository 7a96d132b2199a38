"""What an author may write, read from the code itself: every name an expression may call, every
catalog with its entries and fields (and their units), and the template's fields per answer
kind.

One source for three readers: ``manage.py format_reference`` writes it into
``docs/question-format.md`` (a test fails when the doc and the code drift apart), and the studio's
editor completes names from it (`as_json`).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass
from functools import lru_cache

from quizzes.engine import kinds
from quizzes.engine.model import CATALOGS
from quizzes.engine.namespace import base_names
from quizzes.engine.parse.base import COMMON_PART_FIELDS, PARAMETER_KINDS, TOP_FIELDS

# Each catalog's look-up function and the function that lists its entries.
LISTINGS = {
    "accelerator": "accelerators",
    "dtype": "dtypes",
    "model": "models",
    "link": "links",
}
# A field's unit from its name, the first rule that matches (catalog figures are SI base
# units, and their names say which: docs/physics.md). A field no rule names is a count, a
# label or a mapping, and says so.
UNIT_RULES = (
    (re.compile(r"(^|_)peak_flops$"), "FLOP/s per data type"),
    (re.compile(r"flops_per_clock"), "FLOP per clock per SM, per data type"),
    (re.compile(r"bandwidth$"), "B/s"),
    (re.compile(r"(^|_)bytes$"), "B"),
    (re.compile(r"_hz$"), "Hz"),
    (re.compile(r"_watts$"), "W"),
    (re.compile(r"^latency$"), "s"),
    (re.compile(r"^(max_finite|step_near_one|min_normal|min_subnormal)$"), "a value of the format"),
    (re.compile(r"^bits$|_bits$"), "bit"),
    (re.compile(r"^context_length$"), "tokens"),
    (re.compile(r"^year$"), "calendar year"),
)
TYPE_WORDS = (("bool", "true or false"), ("str", "text"), ("tuple", "list"), ("Mapping", "mapping"))


@dataclass(frozen=True)
class Function:
    name: str
    signature: str
    summary: str


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    unit: str


@dataclass(frozen=True)
class Catalog:
    name: str
    entries: tuple[str, ...]
    fields: tuple[Field, ...]
    methods: tuple[Function, ...]


@dataclass(frozen=True)
class Reference:
    functions: tuple[Function, ...]
    catalogs: tuple[Catalog, ...]
    top_fields: tuple[str, ...]
    part_fields: tuple[str, ...]
    kind_fields: tuple[tuple[str, tuple[str, ...]], ...]
    parameter_kinds: tuple[str, ...]


def unit_of(name: str, type_name: str) -> str:
    """The unit of a catalog field from its name (see UNIT_RULES)."""
    for pattern, unit in UNIT_RULES:
        if pattern.search(name):
            return unit
    for prefix, word in TYPE_WORDS:
        if type_name.startswith(prefix):
            return word
    return "count"


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    first = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    return first.replace("``", "`")


def _signature(obj) -> str:
    try:
        text = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    text = re.sub(r": '([^']*)'", "", text)
    text = re.sub(r" -> '([^']*)'", "", text)
    return re.sub(r": [\w\[\], |.]+(?=[,)=])", "", text)


@lru_cache(maxsize=1)
def reference() -> Reference:
    names = base_names()
    functions = tuple(
        Function(name, _signature(value), _summary(value))
        for name, value in sorted(names.items())
        if callable(value) and not inspect.isclass(value) and not name.startswith("_")
    )
    catalogs = []
    for catalog in CATALOGS:
        entries = names[LISTINGS[catalog]]()
        sample = entries[0]
        fields = tuple(
            Field(f.name, str(f.type), unit_of(f.name, str(f.type)))
            for f in dataclasses.fields(sample)
            if f.name not in ("sources", "aliases", "notes")
        )
        methods = tuple(
            Function(name, _signature(getattr(sample, name)), _summary(getattr(sample, name)))
            for name in sorted(dir(sample))
            if not name.startswith("_")
            and callable(getattr(sample, name))
            and name not in {f.name for f in dataclasses.fields(sample)}
        )
        keys = tuple(getattr(entry, "key", None) or entry.name for entry in entries)
        catalogs.append(Catalog(catalog, keys, fields, methods))
    return Reference(
        functions=functions,
        catalogs=tuple(catalogs),
        top_fields=tuple(TOP_FIELDS),
        part_fields=tuple(COMMON_PART_FIELDS),
        kind_fields=tuple((kind.name, kind.fields) for kind in kinds.all_kinds()),
        parameter_kinds=PARAMETER_KINDS,
    )


def as_json() -> dict:
    """The reference for the editor's completion (plain JSON types)."""
    ref = reference()
    return {
        "functions": [
            {"name": f.name, "signature": f.signature, "summary": f.summary} for f in ref.functions
        ],
        "catalogs": {
            c.name: {
                "entries": list(c.entries),
                "fields": [{"name": f.name, "unit": f.unit} for f in c.fields],
                "methods": [{"name": m.name, "signature": m.signature} for m in c.methods],
            }
            for c in ref.catalogs
        },
        "top_fields": list(ref.top_fields),
        "part_fields": list(ref.part_fields),
        "kinds": {name: list(fields) for name, fields in ref.kind_fields},
        "parameter_kinds": list(ref.parameter_kinds),
    }


def as_markdown() -> str:
    """The reference as the Markdown section of docs/question-format.md."""
    ref = reference()
    out = [
        "Generated from the code by `manage.py format_reference`; a test fails when this "
        "section and the code differ.",
        "",
        "### Functions",
        "",
        "Every name an expression may call (the physics module's functions, the catalog "
        "look-ups and the maths helpers), with its arguments and what it gives. Units are SI base "
        "units (bytes, seconds, FLOP, FLOP/s, bytes/s, dollars) unless the line says otherwise.",
        "",
        "| function | what it gives |",
        "| --- | --- |",
    ]
    for f in ref.functions:
        out.append(f"| `{f.name}{_cell(f.signature)}` | {_cell(f.summary) or '—'} |")
    out += ["", "### Catalogs", ""]
    for c in ref.catalogs:
        listing = LISTINGS[c.name]
        out += [
            f"#### `{c.name}(name)`",
            "",
            f"{len(c.entries)} entries (`{listing}()` lists them): "
            + ", ".join(f"`{e}`" for e in c.entries)
            + ".",
            "",
            "| field | type | unit |",
            "| --- | --- | --- |",
        ]
        out += [f"| `{f.name}` | `{_cell(f.type)}` | {f.unit} |" for f in c.fields]
        if c.methods:
            out += [""] + [
                f"Method `{m.name}{_cell(m.signature)}`: {_cell(m.summary) or '—'}"
                for m in c.methods
            ]
        out.append("")
    out += [
        "### Template fields",
        "",
        "Top level: " + ", ".join(f"`{name}`" for name in ref.top_fields) + ".",
        "",
        "Parameter kinds: " + ", ".join(f"`{name}`" for name in ref.parameter_kinds) + ".",
        "",
        "Every part: " + ", ".join(f"`{name}`" for name in ref.part_fields) + "; each answer "
        "kind's own fields are in its section above (the editor completes them too).",
    ]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
