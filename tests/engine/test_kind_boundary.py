"""The answer-kind boundary: outside its folder, nothing names a kind or asks about its shape.

A kind is a folder of quizzes/engine/kinds/ plus one line in its registry (docs/architecture.md,
"A new answer kind"). These scans fail when code, a template or a script outside the kinds'
folders compares a kind's name, or reads one of the presentation flags the kinds used to carry
(``has_options`` and the like) instead of letting the kind draw its own templates.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from quizzes.engine import kinds

ROOT = Path(__file__).resolve().parents[2]
KINDS_DIR = ROOT / "quizzes" / "engine" / "kinds"
CODE = ("config", "content", "courseware", "lti", "quizzes")
# Where a compared word is spelled like a kind but means something else: the template format's
# parameter kind `choice` (a parameter drawn from a list), not the answer kind; the physics
# function `explain`, not the written-explanation kind.
OTHER_MEANINGS = {
    ("quizzes/engine/parse/parameters.py", "choice"),
    ("quizzes/engine/variants.py", "choice"),
    ("quizzes/engine/plausible/coverage.py", "choice"),
    # The physics function `explain` (which narrates another function's working), not the
    # written-explanation answer kind.
    ("content/limits.py", "explain"),
}
# The flags the kinds once had; a page asking them chose an input's shape for the kind.
RETIRED_FLAGS = ("has_options", "math_answers", "shows_unit", "numeric_answer")


def _outside_the_kinds(pattern: str):
    for top in CODE:
        for path in sorted((ROOT / top).rglob(pattern)):
            if KINDS_DIR in path.parents or "migrations" in path.parts:
                continue
            yield path


def _named_kinds(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of each kind name compared (``==``, ``in (...)``, ``match``) or looked up
    (``kind_named("choice")``) in `tree`."""
    names = set(kinds.kind_names())
    places: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            places += [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            places.append(node.value)
        elif isinstance(node, ast.Call) and _callee(node).startswith("kind"):
            places += node.args
    found = []
    for place in places:
        for node in ast.walk(place):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append((node.lineno, node.value))
    return found


def _callee(call: ast.Call) -> str:
    return getattr(call.func, "attr", getattr(call.func, "id", ""))


def test_no_python_outside_the_kinds_folders_names_a_kind():
    found = []
    for path in _outside_the_kinds("*.py"):
        where = str(path.relative_to(ROOT))
        for line, name in _named_kinds(ast.parse(path.read_text(encoding="utf-8"))):
            if (where, name) not in OTHER_MEANINGS:
                found.append(f"{where}:{line} names the kind {name!r}")
    assert not found, "\n".join(found)


def test_no_template_or_script_outside_the_kinds_folders_names_a_kind():
    names = "|".join(re.escape(n) for n in kinds.kind_names())
    quoted = rf"""(["'])(?:{names})\1"""
    # In a template only its tags can compare; in a script, an equality or a case.
    in_tag = re.compile(r"{%[^%]*?" + quoted + r"[^%]*?%}|{{[^}]*?" + quoted + r"[^}]*?}}")
    in_script = re.compile(r"(?:[=!]==?\s*|case\s+)" + quoted + "|" + quoted + r"\s*[=!]==?")
    found = []
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static").rglob("*.js")]:
        if "vendor" in path.parts:
            continue
        pattern = in_tag if path.suffix == ".html" else in_script
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)} compares: {match.group(0)}")
    assert not found, "\n".join(found)


def test_nothing_asks_a_kind_for_the_shape_of_its_input():
    flags = re.compile(rf"\b({'|'.join(RETIRED_FLAGS)})\b")
    found = []
    for pattern in ("*.py", "*.html"):
        for path in [*_outside_the_kinds(pattern), *(ROOT / "templates").rglob(pattern)]:
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if flags.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
    for kind in kinds.all_kinds():
        for flag in RETIRED_FLAGS:
            assert not hasattr(kind, flag), f"{kind.name} still carries {flag}"


def test_the_scans_see_a_kind_name_where_one_is_planted():
    planted = ast.parse(
        'if part.kind not in ("numeric", "formula"):\n    pass\n'
        'choice = kinds.kind_named("choice")\n'
        'words = {"interval": 60}\n'  # a key that only shares the spelling: not a comparison
    )
    assert sorted(name for _, name in _named_kinds(planted)) == ["choice", "formula", "numeric"]


def test_every_kind_folder_is_registered_and_every_registered_kind_has_a_folder():
    folders = {p.parent.name for p in KINDS_DIR.glob("*/__init__.py")}
    assert folders == set(kinds.kind_names())
