"""The one bar-chart geometry: server-drawn SVG bars for every histogram the site shows (the
instructor dashboard's score distributions, the item page's tries, the studio's answer ranges).

Pure geometry over counts and labels; the templates draw the bars and repeat them as a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The space above the tallest bar, for its count.
HEADROOM = 16


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str

    @property
    def mid(self) -> float:
        return round(self.x + self.width / 2, 1)


@dataclass
class Chart:
    width: int
    height: int
    bars: list[Bar] = field(default_factory=list)
    # Labels of the axis's two ends, for charts that name only those.
    low: str = ""
    high: str = ""

    @property
    def total(self) -> int:
        return sum(bar.count for bar in self.bars)


def bar_chart(
    counts: list[int],
    labels: list[str],
    *,
    width: int = 320,
    height: int = 120,
    gap: int = 2,
    low: str = "",
    high: str = "",
) -> Chart:
    """Bars for `counts` side by side over `width`, scaled so the tallest fills the height."""
    tallest = max(counts, default=0) or 1
    slot = width / max(len(counts), 1)
    bars = []
    for index, (count, label) in enumerate(zip(counts, labels)):
        bar_height = round(count / tallest * (height - HEADROOM), 1)
        bars.append(
            Bar(
                x=round(index * slot + gap / 2, 1),
                y=round(height - bar_height, 1),
                width=round(slot - gap, 1),
                height=bar_height,
                count=count,
                label=label,
            )
        )
    return Chart(width, height, bars, low, high)
