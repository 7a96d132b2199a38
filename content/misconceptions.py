"""The catalogue of common mistakes: one entry per diagnosis code, with the section that fixes it.

Loaded from ``content/misconceptions.yaml``.  Pure Python (no Django) so the quizzes app, the
courseware app and offline checks read the same entries.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

MISCONCEPTIONS_FILE = Path(__file__).with_name("misconceptions.yaml")
_FIELDS = ("title", "explanation", "chapter", "anchor")
# Optional: how the slip produces a wrong number, as signatures the question bank's tests
# recompute (quizzes/engine/diagnoses.py); each is a one-key mapping {kind: argument}.
_OPTIONAL = ("wrong_model",)


@dataclass(frozen=True)
class Misconception:
    """A recognised mistake: its diagnosis ``code``, a short ``title``, a one-sentence
    ``explanation``, the ``chapter`` slug and heading ``anchor`` that explain it, and its
    ``wrong_model``: the ways the slip turns the right answer into the wrong one."""

    code: str
    title: str
    explanation: str
    chapter: str
    anchor: str
    wrong_model: tuple[dict, ...] = ()


def load_misconceptions(path: Path = MISCONCEPTIONS_FILE) -> dict[str, Misconception]:
    """Read and check a misconceptions file; ValueError names the file and the faulty entry."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: expected a mapping of diagnosis codes to entries")
    entries: dict[str, Misconception] = {}
    for code, entry in data.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path.name}: entry {code!r} must be a mapping")
        missing = [f for f in _FIELDS if not str(entry.get(f) or "").strip()]
        if missing:
            raise ValueError(f"{path.name}: entry {code!r} lacks {', '.join(missing)}")
        unknown = sorted(set(entry) - set(_FIELDS) - set(_OPTIONAL))
        if unknown:
            raise ValueError(f"{path.name}: entry {code!r} has unknown keys {', '.join(unknown)}")
        model = entry.get("wrong_model") or []
        if not isinstance(model, list) or not all(
            isinstance(s, dict) and len(s) == 1 for s in model
        ):
            raise ValueError(
                f"{path.name}: entry {code!r}: wrong_model is a list of {{kind: argument}}"
            )
        fields = (str(entry[f]).strip() for f in _FIELDS)
        entries[str(code)] = Misconception(str(code), *fields, tuple(model))
    return entries


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Misconception]:
    return load_misconceptions()


def misconceptions() -> tuple[Misconception, ...]:
    """Every misconception, in the file's order."""
    return tuple(_catalogue().values())


def misconception(code: str) -> Misconception:
    """The entry for diagnosis ``code``; KeyError names the closest known code."""
    try:
        return _catalogue()[code]
    except KeyError:
        close = difflib.get_close_matches(str(code), list(_catalogue()), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"no misconception with code {code!r}{hint}") from None


__all__ = ["Misconception", "load_misconceptions", "misconception", "misconceptions"]
