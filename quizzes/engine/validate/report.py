"""What a validation run reports: its failures (each with the seed that shows it), every numeric
part's answer range and histogram, and how the failures are collected over many seeds."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from quizzes.engine.model import Template

HISTOGRAM_BINS = 10


@dataclass(frozen=True)
class ValidationFailure:
    """One broken promise: which check, what happened, the first seed that shows it, how often."""

    check: str
    message: str
    seed: int | None = None
    part: str | None = None
    count: int = 1

    def __str__(self) -> str:
        where = f" (part {self.part})" if self.part else ""
        seed = f" [seed {self.seed}" + (f", {self.count} seeds" if self.count > 1 else "") + "]"
        return f"{self.check}{where}: {self.message}" + (seed if self.seed is not None else "")


@dataclass(frozen=True)
class PartStats:
    """Answer statistics of one numeric part over the validation seeds."""

    unit: str | None
    minimum: float
    maximum: float
    histogram: tuple[tuple[float, float, int], ...]
    common_error_ratios: dict[str, float] = field(default_factory=dict)


@dataclass
class ValidationReport:
    """The result of ``validate_template``; ``ok`` when there are no failures."""

    slug: str
    source: str
    seeds: int
    variants: int = 0
    distinct_variants: int = 0
    failures: list[ValidationFailure] = field(default_factory=list)
    parts: dict[str, PartStats] = field(default_factory=dict)
    outcomes: dict[str, float] = field(default_factory=dict)
    # Set when the wall-clock budget ran out: how many seeds were checked.
    stopped_after: int | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        """One line: slug, distinct variants, answer ranges, outcome balance, verdict."""
        pieces = [f"{self.slug}: {self.distinct_variants} distinct variants"]
        for part_id, stats in self.parts.items():
            unit = f" {stats.unit}" if stats.unit else ""
            pieces.append(f"{part_id} in [{stats.minimum:.3g}, {stats.maximum:.3g}]{unit}")
        if self.outcomes:
            balance = " / ".join(f"{k} {v:.0%}" for k, v in sorted(self.outcomes.items()))
            pieces.append(f"outcomes {balance}")
        verdict = "ok" if self.ok else f"{len(self.failures)} failures"
        return ", ".join(pieces) + f": {verdict}"


class Collector:
    """Failures folded by (check, part, message), keeping the first seed and a count."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str | None, str], list] = {}
        self.recording: list[tuple] | None = None

    def add(
        self,
        check: str,
        message: str,
        seed: int | None,
        part: str | None = None,
        *,
        fold: str | None = None,
    ) -> None:
        """Record a failure; failures with the same check, part and ``fold`` key are counted
        together (``fold`` defaults to the message), keeping the first seed and message."""
        if self.recording is not None:
            self.recording.append((check, message, part, fold))
        key = (check, part, message if fold is None else fold)
        if key in self.found:
            self.found[key][2] += 1
        else:
            self.found[key] = [message, seed, 1]

    def record(self) -> list[tuple]:
        """Start remembering every failure added, so they can be replayed for another seed."""
        self.recording = []
        return self.recording

    def stop(self) -> None:
        self.recording = None

    def replay(self, recorded: list[tuple], seed: int) -> None:
        """Add again, for ``seed``, the failures recorded while checking an identical variant."""
        for check, message, part, fold in recorded:
            self.add(check, message, seed, part, fold=fold)

    def failures(self) -> list[ValidationFailure]:
        return [
            ValidationFailure(check, message, seed, part, count)
            for (check, part, _), (message, seed, count) in self.found.items()
        ]


def part_stats(template: Template, answers, ratios, scales) -> dict[str, PartStats]:
    """The spread of each numeric part's answers (`scales`: part id -> its kind's
    ``NumberScale``), with the median ratio of each common error to the answer."""
    stats = {}
    for part in template.parts:
        values = answers.get(part.id)
        if not values:
            continue
        stats[part.id] = PartStats(
            unit=scales[part.id].unit,
            minimum=min(values),
            maximum=max(values),
            histogram=histogram(values),
            common_error_ratios={
                code: statistics.median(found) for code, found in ratios[part.id].items()
            },
        )
    return stats


def histogram(values: list[float], bins: int = HISTOGRAM_BINS):
    """(low, high, count) per bin; log-spaced when positive values span more than 100×."""
    low, high = min(values), max(values)
    if low == high:
        return ((low, high, len(values)),)
    logarithmic = low > 0 and high / low > 100
    if logarithmic:
        edges = [
            math.exp(math.log(low) + (math.log(high) - math.log(low)) * i / bins)
            for i in range(bins + 1)
        ]
    else:
        edges = [low + (high - low) * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for value in values:
        index = next((i for i in range(bins) if value < edges[i + 1]), bins - 1)
        counts[index] += 1
    return tuple((edges[i], edges[i + 1], counts[i]) for i in range(bins))
