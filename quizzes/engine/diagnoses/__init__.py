"""Wrong models: does a common error's value follow from the slip its diagnosis code names?

Every misconception of ``content/misconceptions.yaml`` states its ``wrong_model``: the ways a
student who makes that slip arrives at a number, as signatures from a small vocabulary
(``signatures.SIGNATURES``: a factor on the answer or on one of its inputs, a term of a sum left
out, the other leg of a roofline, a ceiling taken as a floor, another data type, ...).
``explained_by`` recomputes the part's answer under each perturbation a signature allows, from
the variant's own values, and says which signature reproduces the common error's value.

A perturbation works on two readings of the answer: as written (the derived parameters held at
the values the prompt shows) and written out (every numeric derived parameter and every earlier
part it uses replaced by its expression, so a perturbation reaches the inputs they are built
from).  Catalog entries are perturbed field by field (a bandwidth halved, a model's
``n_kv_heads`` set to its ``n_heads``), which reaches the physics functions that read them.
Pure Python, no Django: the tests walk the whole bank with it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from content.misconceptions import misconception
from quizzes.engine.model import Part, Template
from quizzes.engine.variants import Variant


@dataclasses.dataclass(frozen=True)
class Case:
    """One common error of one part in one variant: what the signatures must reproduce."""

    template: Template
    part: Part
    variant: Variant
    value: float
    rtol: float

    @property
    def answer(self) -> float:
        return self.variant.answers[self.part.id]

    def matches(self, candidate: Any) -> bool:
        if isinstance(candidate, bool) or not isinstance(candidate, (int, float)):
            return False
        if not math.isfinite(candidate):
            return False
        tolerance = max(
            self.rtol * abs(candidate), self.part.settings.atol, 1e-12 * abs(self.value)
        )
        return abs(self.value - candidate) <= tolerance

    def matches_answer(self, candidate: Any) -> bool:
        """Whether ``candidate`` is the part's own answer (a reading of it is sound)."""
        if isinstance(candidate, bool) or not isinstance(candidate, (int, float)):
            return False
        return math.isclose(candidate, self.answer, rel_tol=1e-9, abs_tol=1e-300)


def wrong_model(code: str) -> tuple[Mapping[str, Any], ...]:
    """The signatures of ``code``'s slip, from the catalogue of misconceptions."""
    return misconception(code).wrong_model


def explained_by(
    template: Template, part: Part, code: str, variant: Variant
) -> tuple[str | None, float | None]:
    """(the signature that reproduces the common error's value, or None; that value).

    ("not offered", None) when the common error is None in this variant.
    """
    from quizzes.engine.diagnoses.signatures import SIGNATURES

    value = variant.common_errors.get(part.id, {}).get(code)
    if value is None:
        return "not offered", None
    spec = next(s for s in part.settings.common_errors if s.code == code)
    rtol = max(spec.rtol if spec.rtol is not None else part.settings.rtol, 1e-6)
    case = Case(template, part, variant, value, rtol)
    with variant.replaying():
        for signature in wrong_model(code):
            ((kind, argument),) = signature.items()
            if SIGNATURES[kind](case, argument):
                return kind, value
    return None, value


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


__all__ = ["Case", "explained_by", "is_number", "wrong_model"]
