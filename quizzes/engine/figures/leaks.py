"""The rule that a figure never gives an answer away.

A figure is drawn before the student answers, so no number it shows (a bar, a segment, a
stacked total, the reference line, a roofline's ceilings and points, every number printed in
a label or the title) may equal a part's key: within the part's tolerance, and never closer
than 0.1 %. The publication gate checks it on every seed it validates (``figure-leak``).
Keys that are not numbers (a choice, an order) cannot be compared; the author's review of the
picture covers them (docs/question-format.md, "Figures").
"""

from __future__ import annotations

import math
import re

from quizzes.engine.figures.draw import DrawnFigure

FLOOR = 1e-3
# A number as a label prints it ("49.5 GB", "4.95×10¹⁰", "1,024"), not the digits of a name
# ("L4", "H100", "Llama-2-7B"); a prefix before a unit scales it.
_NUMBER = re.compile(
    r"(?<![\w.-])(\d[\d,]*(?:\.\d+)?)(?:[eE]([-+]?\d+)|\s?[×x·]\s?10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?:\s?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P|E)(?=[A-Za-z]))?"
)
_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_PREFIX = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_PREFIX.update({"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50})


def _keys(template, variant) -> list[tuple[str, float, float]]:
    """(part id, key, tolerance) of every numeric key of the variant."""
    keys = []
    for part in template.parts:
        answer = variant.answers.get(part.id)
        values = answer if isinstance(answer, (tuple, list)) else (answer,)
        rtol = getattr(part.settings, "rtol", None) or 0.0
        for value in values:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if math.isfinite(value) and value != 0:
                    keys.append((part.id, float(value), max(float(rtol), FLOOR)))
    return keys


def _printed(labels: list[str]) -> list[float]:
    numbers = []
    for label in labels:
        for digits, exponent, superscript, prefix in _NUMBER.findall(label):
            try:
                value = float(digits.replace(",", ""))
                power = exponent or superscript.translate(_SUPERSCRIPT)
                value *= 10.0 ** int(power) if power else 1.0
            except ValueError:
                continue
            numbers.append(value * _PREFIX.get(prefix, 1.0))
    return numbers


def figure_leaks(template, variant, drawn: DrawnFigure | None) -> list[str]:
    """Why the figure of ``variant`` shows a key, one message per part it gives away."""
    if drawn is None:
        return []
    shown = [("draws", v) for v in drawn.numbers()]
    shown += [("prints", v) for v in _printed(drawn.labels())]
    problems = []
    for part_id, key, rtol in _keys(template, variant):
        for how, value in shown:
            if abs(value - key) <= rtol * abs(key):
                problems.append(
                    f"rule figure-leak: the figure {how} {value:.4g}, the key of part "
                    f"{part_id} ({key:.4g}): a figure shows what the question gives, never "
                    "what it asks"
                )
                break
    return problems
