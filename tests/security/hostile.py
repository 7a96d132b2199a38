"""A question template whose every text field carries the worst payloads of the corpus."""

from __future__ import annotations

import yaml

from tests.security.payloads import MARKUP, MATH, PAYLOADS

# The ones that worked against the site before the sanitizer, and their close relatives.
WORST = [
    MATH[0],  # \text{<img/src=x/onerror=...>}: stored XSS for every student and the instructor
    MATH[1],
    MATH[2],
    MATH[6],  # \href{javascript:...}
    MATH[9],  # \style
    MATH[16],  # mglyph/style mutation
    MATH[17],  # breaking out of mtext and math
    MATH[26],  # foreignObject
    MARKUP[0],
    MARKUP[4],
    MARKUP[11],  # an outside image
    MARKUP[23],
]


def _block(items) -> str:
    return "\n\n".join(items) + "\n"


def hostile_source(slug: str = "hostile-payloads") -> str:
    """YAML of a two-part template (numeric with common-error feedback, choice with option
    feedback), hints from the start, and a solution, every text holding payloads."""
    doc = {
        "slug": slug,
        "title": "Hostile payloads",
        "chapter": "inference",
        "objectives": ["Render hostile text as inert text"],
        "tags": ["security"],
        "difficulty": 1,
        "min_variants": 1,
        "parameters": {"acc": {"choice": ["A100", "H100"], "catalog": "accelerator"}},
        "prompt": "The bandwidth of the {{ acc }} matters.\n\n" + _block(PAYLOADS),
        "parts": [
            {
                "id": "bw",
                "kind": "numeric",
                "prompt": _block(WORST),
                "answer": "acc.memory_bandwidth",
                "unit": "B/s",
                "plausible": [1.0e11, 1.0e14],
                "common_errors": [
                    {
                        "code": "bits-for-bytes",
                        "value": "8 * acc.memory_bandwidth",
                        "feedback": _block(WORST),
                    }
                ],
            },
            {
                "id": "pick",
                "kind": "choice",
                "prompt": _block(WORST[:4]),
                "options": [
                    {
                        "id": "yes",
                        "text": WORST[0],
                        "correct": True,
                        "feedback": _block(WORST),
                    },
                    {
                        "id": "no",
                        "text": WORST[3] + " " + WORST[8],
                        "correct": False,
                        "feedback": _block(WORST),
                    },
                ],
            },
        ],
        "hints": [{"after": 0, "text": _block(WORST)}, {"after": 1, "text": _block(WORST)}],
        "solution": "It is {{ part_bw | B/s }}.\n\n" + _block(WORST),
    }
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)


def hostile_chapter() -> str:
    """A chapter body (raw HTML allowed) with every payload."""
    return "# Hostile chapter\n\nA paragraph.\n\n" + _block(PAYLOADS) + "\n## After\n\nThe end.\n"
