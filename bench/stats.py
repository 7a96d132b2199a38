"""Percentiles and timing summaries: every figure in the report is a median with its spread."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks.

    The same definition as numpy's default ("linear"): rank = q/100 · (n − 1), so the 0th is the
    minimum, the 100th the maximum and the 50th the median.
    """
    if not samples:
        raise ValueError("percentile of no samples")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be between 0 and 100, not {q}")
    ordered = sorted(samples)
    rank = q / 100 * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(seconds: Sequence[float]) -> dict[str, float]:
    """Milliseconds: n, median, p25, p75, p95, p99, min, max and mean of durations in seconds."""
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "median_ms": percentile(ms, 50),
        "p25_ms": percentile(ms, 25),
        "p75_ms": percentile(ms, 75),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "min_ms": min(ms),
        "max_ms": max(ms),
        "mean_ms": sum(ms) / len(ms),
    }


def time_calls(call: Callable[[], object], *, repeat: int, warmup: int = 1) -> list[float]:
    """Durations in seconds of `repeat` calls of `call`, after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    durations = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        durations.append(time.perf_counter() - started)
    return durations


def growth_exponent(sizes: Sequence[float], values: Sequence[float]) -> float | None:
    """The slope of log(value) against log(size) by least squares: 1 is linear growth, 0 flat.

    None when fewer than two points are usable (non-positive values cannot be logged).
    """
    points = [
        (math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if s > 0 and v > 0
    ]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def close_block(block, names, totals, ratios, *, alone=None, ratios_alone=None) -> None:
    """End one block of side-by-side rounds: each name's samples join ``totals``, and its median
    over the block's floor median (interleaved) joins ``ratios``; with ``alone`` (the floor timed
    in a row before the rounds), its median over that floor's joins ``ratios_alone`` too."""
    floor = percentile(block["floor"], 50)
    floor_alone = percentile(alone, 50) if alone is not None else None
    for name in names:
        median = percentile(block[name], 50)
        totals[name] += block[name]
        ratios[name].append(median / floor)
        if floor_alone is not None:
            ratios_alone[name].append(median / floor_alone)


def run_facts(vendor: str, started: str, load_start, blocks: int, rounds: int) -> dict:
    """The facts every side-by-side run reports first: the database, when it began, the load
    average before and now, and its blocks of rounds."""
    return {
        "vendor": vendor,
        "started": started,
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "blocks": blocks,
        "rounds": rounds,
    }


def cpu_summary(cpu, wall, ratios, queries, names, *, ratios_alone=None) -> dict[str, dict]:
    """Per request kind: CPU ms (median, p25, p75), wall ms, × floor (median, p25, p75; and
    × the floor timed alone, when given) and queries, from the side-by-side blocks' samples."""
    summary = {}
    for name in names:
        row = {
            "cpu_ms": percentile(cpu[name], 50),
            "cpu_p25_ms": percentile(cpu[name], 25),
            "cpu_p75_ms": percentile(cpu[name], 75),
            "wall_ms": percentile(wall[name], 50),
            "ratio": percentile(ratios[name], 50),
            "ratio_p25": percentile(ratios[name], 25),
            "ratio_p75": percentile(ratios[name], 75),
        }
        if ratios_alone is not None:
            row["ratio_alone"] = percentile(ratios_alone[name], 50)
        row["queries"] = queries[name]
        summary[name] = row
    return summary


def json_main(prog: str, run: Callable, *, repeat: int, argv=None) -> int:
    """A side-by-side bench run as a command: `--out FILE [--repeat N]`, the result as JSON."""
    import argparse
    import json

    from bench.djangoside import setup

    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeat", type=int, default=repeat)
    args = parser.parse_args(argv)
    setup()
    with open(args.out, "w") as out:
        json.dump(run(args), out, default=str)
    return 0
