"""The step record shared by every narrator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One line of working: what it is, its formula, the numbers put in, and what came out.

    ``formula`` and ``substituted`` are LaTeX; ``result`` is plain text such as "295 FLOP/byte".
    """

    label: str
    formula: str
    substituted: str
    result: str
