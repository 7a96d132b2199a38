"""The bridge between stored rows and the pure question engine.

Everything that turns a `TemplateVersion` into a parsed template, a `Variant` row into the
engine's variant, or a raw answer into a grade goes through here, so the workflows never touch
engine internals. (What the browser sees is built in `quizzes.presenters.display`.)
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from courseware import caching
from quizzes import engine
from quizzes.engine import kinds


def max_answer_length(kind: str | None) -> int:
    """The longest answer a part of `kind` accepts: its kind's limit (the grader's own), so the
    input box, the server's refusal and the grader never disagree."""
    return kinds.max_answer_length(kind)


def too_long_message(text: str, kind: str | None) -> str | None:
    """Why `text` is too long for a part of `kind`, or None when it fits."""
    return kinds.too_long_message(text, kind)


class QuestionUnavailable(Exception):
    """A stored template version no longer parses or renders (a bank error, not the student's)."""


# -- parsing and variants -------------------------------------------------------------------


# A parsed template is counted at 100 kB (measured over 60 of the bank's versions with
# tracemalloc: 97 kB each on average, more than `deep_size` sees of its nodes): some 330 kept.
@caching.memoize(
    "parsed templates (questions)",
    max_bytes=32 * 1024 * 1024,
    why="parsing a template's YAML and expressions is most of an attempt page drawn without it",
    sizeof=lambda template: 100_000,
)
def _parsed(source: str, origin: str):
    return engine.parse_template(source, source=origin)


def template_for(version) -> Any:
    """The parsed engine template of a `TemplateVersion` (parsed once per process)."""
    try:
        return _parsed(version.source, f"{version.title} (v{version.number})")
    except Exception as error:  # noqa: BLE001 - a broken version must not crash a page
        raise QuestionUnavailable(str(error)) from error


# How long drawing one student's variant may take before the start is refused (a template
# fault the instructor is told of), rather than the student waiting on it.
STUDENT_DRAW_SECONDS = 5.0


def new_variant_fields(version, seed: bytes) -> dict[str, Any]:
    """Generate the variant for `seed` and return the `Variant` row fields that store it whole.

    `parameters` holds the drawn values (catalog entries by key); `answers` holds the rest of
    `engine.Variant.to_json()` (answers per part, common-error values, option order), so
    `engine_variant` rebuilds exactly the same variant without the template.
    """
    # A published version passed the gate, its extremes included; the deadline still stops a
    # draw loop that an unlucky seed would make long (each draw is bounded by the functions'
    # argument limits), so no student's start waits on it for more than a few seconds.
    deadline = time.monotonic() + STUDENT_DRAW_SECONDS
    generated = engine.generate_variant(template_for(version), seed, deadline=deadline)
    data = generated.to_json()
    return {
        "seed": seed.hex(),
        "parameters": data.pop("params"),
        "answers": data,
        "outcome": data.get("outcome") or "",
    }


def engine_variant(row) -> Any:
    """The engine's variant for a stored `Variant` row, from its stored JSON alone."""
    return engine.Variant.from_json({**row.answers, "params": row.parameters})


def catalog_stamp(row) -> str:
    """A short name for the catalog figures a stored variant shows: its snapshot's digest, or
    the live catalog's fingerprint for a variant stored before snapshots (which reads it)."""
    return engine.catalog_digest((row.answers or {}).get("catalog"))


def option_token(row, part_id: str, option_id: str) -> str:
    """What the browser sees of a choice option: an opaque name, different in every variant, so
    no option id ("right", "b-correct") tells a student anything in the page's source."""
    import hashlib
    import hmac

    from django.conf import settings

    message = f"option|{row.pk}|{part_id}|{option_id}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()
    return f"o{digest[:12]}"


def option_ids_by_token(row, part_id: str) -> dict[str, str]:
    """{token: option id} of a part of a stored variant (its options as stored, no parse)."""
    order = (row.answers or {}).get("option_order", {}).get(part_id) or []
    return {option_token(row, part_id, option_id): option_id for option_id in order}


def with_item_ids(row, part_id: str, values: list[str]) -> list[str]:
    """Posted values with each item's opaque name (`option_token`: a choice's option, an item
    to order or match) turned back into the id its kind knows: a value that is a name, or one
    that starts with a name before a colon ("o3f...:2", an item's position or category).
    Anything else is left as it is, for the kind's cleaning to judge."""
    ids = option_ids_by_token(row, part_id)
    read = []
    for value in values:
        head, colon, rest = value.partition(":")
        if value in ids:
            read.append(ids[value])
        elif colon and head in ids:
            read.append(f"{ids[head]}:{rest}")
        else:
            read.append(value)
    return read


def correct_answers(row) -> dict[str, Any]:
    """Correct answer per part id (float, formula text or option ids); server side only."""
    return dict(row.answers.get("answers", {}))


def common_error_values(row) -> dict[str, dict[str, float]]:
    return {k: dict(v) for k, v in row.answers.get("common_errors", {}).items()}


def part_kind(row, part_id: str) -> str | None:
    """The kind name of one part of a stored variant, or None when it has no such part."""
    answer_kind = kind_of(row, part_id)
    return answer_kind.name if answer_kind is not None else None


def kind_of(row, part_id: str) -> kinds.AnswerKind | None:
    """The answer kind (``quizzes.engine.kinds``) of one part, or None when there is none."""
    template = template_for(row.version)
    try:
        return kinds.kind_for(template.part(part_id))
    except KeyError:
        return None


def part_points(row) -> dict[str, float]:
    return {part.id: float(part.points) for part in template_for(row.version).parts}


# -- grading ---------------------------------------------------------------------------------


def grade(row, part_id: str, raw: str | list[str], *, earlier: Mapping[str, float]):
    """The engine's grade of `raw` for one part, with earlier part values for carry-forward;
    the part's kind decides which grader runs and whether under the pool's limits."""
    template = template_for(row.version)
    return engine.grade_part(template, engine_variant(row), part_id, raw, earlier=dict(earlier))


def preview(row, part_id: str, raw: str) -> tuple[str, bool, str] | None:
    """How an answer will be read while it is typed: (plain text or why it cannot be read,
    readable, LaTeX), or None when the part's kind has no live preview."""
    part = template_for(row.version).part(part_id)
    return kinds.kind_for(part).live_preview(part, raw)


def saved_state(row, part_id: str, raw: str) -> tuple[str, str]:
    """("saved" | "empty" | "unreadable", what the student is told) for an exam's saved text."""
    if not (raw or "").strip():
        return "empty", "No answer saved yet."
    try:
        readable, text = read_back(row, part_id, raw)
    except QuestionUnavailable:
        return "saved", ""
    return ("saved" if readable else "unreadable"), text


def read_back(row, part_id: str, raw: str) -> tuple[bool, str]:
    """How an exam answer will be read when it is graded, without grading it: (readable, text),
    as the part's kind reads it ("Read as 3.2 ms", why it cannot be read, a formula's reading).
    Nothing here depends on the correct answer, only on what the question already shows."""
    if not (raw or "").strip():
        return False, "No answer saved yet."
    part = template_for(row.version).part(part_id)
    return kinds.kind_for(part).read_back(part, raw)
