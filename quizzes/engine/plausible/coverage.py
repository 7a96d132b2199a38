"""Which checks a template must declare, read from what it draws.

A check an author forgets cannot refuse anything, so the publication gate asks for the checks
that a template's parameters call for: a template that draws a model and an accelerator (or a
model and a link: some GPUs hold what the link carries) states whether the model fits
(``fits_memory``, with the parallelism its prompt states as `devices`, or ``training_fits``);
one that draws an accelerator and a link states how that link belongs to the part
(``has_link`` for its own or host link, ``peer_link`` for the link between two of them); one
that draws a price or a gradient magnitude bounds it with ``in_range``.  Each rule can be
answered by an ``idealised`` entry naming the check and why, which the prompt must say too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizzes.engine.model import Template


@dataclass(frozen=True)
class Rule:
    name: str
    satisfied_by: tuple[str, ...]
    advice: str


MEMORY = Rule(
    "memory-fit",
    ("fits_memory", "training_fits", "fits_bytes"),
    "declare `fits_memory` (with `devices:` for the parallelism the prompt states and, where "
    "it matters, `level:`), `training_fits`, or `fits_bytes` for weights in a format the "
    "catalog has no dtype for",
)
LINK = Rule(
    "link-pairing",
    ("has_link", "peer_link"),
    "declare `has_link` (the part's own scale-up or host link) or `peer_link` (the link "
    "between two of these parts: SXM and OAM modules over their fabric, PCIe cards over PCIe)",
)
RANGE = Rule(
    "value-range",
    ("in_range",),
    "declare `in_range` with the kind of value (see content/physics/catalog/ranges.py)",
)
# Drawn parameters whose names say they are a price or a gradient magnitude.
_RANGED_NAMES = re.compile(r"(price|dollar|usd|grad)", re.IGNORECASE)


def _declared(template: Template) -> set[str]:
    named = {c.check for c in template.plausible}
    for check in template.plausible:
        if check.check == "idealised":
            for name, expr in check.arguments:
                if name == "skips":
                    named.add(expr.text.strip().strip("'\""))
    return named


def _catalog_params(template: Template, catalog: str) -> list[str]:
    return [p.name for p in template.parameters if p.catalog == catalog]


def missing_checks(template: Template) -> list[str]:
    """A sentence per coverage rule the template breaks, naming the rule and what to declare."""
    declared = _declared(template)
    problems = []

    def ask(rule: Rule, why: str) -> None:
        if not declared & set(rule.satisfied_by):
            alternatives = " or ".join(f"`{c}`" for c in rule.satisfied_by)
            problems.append(
                f"rule {rule.name}: {why}; {rule.advice}, or an `idealised` entry naming "
                f"{alternatives} and the reason the prompt gives"
            )

    models = _catalog_params(template, "model")
    accelerators = _catalog_params(template, "accelerator")
    links = _catalog_params(template, "link")
    if models and accelerators:
        ask(
            MEMORY,
            f"the template draws a model ({models[0]}) and an accelerator ({accelerators[0]})",
        )
    elif models and links:
        # a model sent over a link is trained or served on some GPUs: the review's B-P2 found
        # "data parallelism" of models whose training state no GPU holds, in a template that
        # named no accelerator and so escaped the rule above
        ask(
            MEMORY,
            f"the template draws a model ({models[0]}) and a link ({links[0]}), so some GPUs "
            "hold the model: draw or derive them as an accelerator",
        )
    if accelerators and links:
        ask(LINK, f"the template draws an accelerator ({accelerators[0]}) and a link ({links[0]})")
    ranged = [
        p.name
        for p in template.parameters
        if p.kind in ("range", "loguniform", "choice")
        and p.catalog is None
        and _RANGED_NAMES.search(p.name)
    ]
    if ranged:
        ask(RANGE, f"the template draws {ranged[0]}, a price or gradient magnitude")
    return problems


__all__ = ["LINK", "MEMORY", "RANGE", "Rule", "missing_checks"]
