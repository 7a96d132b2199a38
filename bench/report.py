"""docs/BENCHMARKS.md, written from the JSON files in bench/results/ (never by hand)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "BENCHMARKS.md"


def ms(value: float | None) -> str:
    """Milliseconds with sensible precision: 0.031, 2.41, 37.2, 1 204."""
    if value is None:
        return "–"
    if value < 1:
        return f"{value:.3f}"
    if value < 10:
        return f"{value:.2f}"
    if value < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}".replace(",", " ")


def spread(summary: dict) -> str:
    """ "median (p25–p75)" of a summary from `bench.stats.summarize`."""
    return f"{ms(summary['median_ms'])} ({ms(summary['p25_ms'])}–{ms(summary['p75_ms'])})"


def rate(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}".replace(",", " ") if value >= 100 else f"{value:.1f}"


def verdict(met: bool, gap: str = "") -> str:
    return "**met**" if met else f"**not met**{': ' + gap if gap else ''}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _load(suite: str) -> dict | None:
    path = RESULTS / f"{suite}.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def _machine(result: dict) -> str:
    m = result["machine"]
    versions = f"Python {m['python']}, Django {m['django']}, SQLite {m['sqlite']}"
    if m.get("postgresql"):
        versions += f", PostgreSQL {m['postgresql']}"
    quick = " (quick run: fewer repeats)" if result.get("quick") else ""
    return (
        f"_Measured {m['date']} on {m['cpu']}, {m['nproc']} cores, {m['memory_gib']} GiB; "
        f"{versions}{quick}._"
    )


# -- sections ---------------------------------------------------------------------------------


def grading_section(result: dict) -> tuple[str, list[tuple[str, str]]]:
    data = result["data"]
    groups = data["groups"]
    rows = []
    for name, g in groups.items():
        per_call = g.get("per_call")
        rows.append(
            [
                name,
                str(g["cases"]),
                spread(per_call) if per_call else "pool only",
                ms(per_call["p99_ms"]) if per_call else "–",
                rate(g.get("per_call_throughput_per_s")),
                spread(g["pool"]),
                ms(g["pool"]["p99_ms"]),
                rate(g["pool_throughput_per_s"]),
            ]
        )
    numeric = groups["numeric"]["per_call"]["median_ms"]
    ordinary = groups["formula, ordinary"]["pool"]["p99_ms"]
    hostile = [c for c in groups["formula, hostile corpus"].get("per_case_pool", [])]
    slowest = max(hostile, key=lambda c: c["max_ms"]) if hostile else None
    refused = all(c["status"] == "invalid" for c in hostile)
    targets = [
        (
            "numeric grade under 0.2 ms median (per call)",
            verdict(numeric < 0.2, f"{ms(numeric)} ms") + f" ({ms(numeric)} ms)",
        ),
        (
            "formula under 100 ms p99, ordinary input (through the pool, as on the site)",
            verdict(ordinary < 100, f"{ms(ordinary)} ms") + f" ({ms(ordinary)} ms)",
        ),
    ]
    if slowest:
        targets.append(
            (
                "every hostile input refused under 100 ms",
                verdict(refused and slowest["max_ms"] < 100, f"slowest {slowest['input']!r}")
                + f" (slowest of {len(hostile)}: {ms(slowest['max_ms'])} ms, "
                + ("all invalid" if refused else "NOT all invalid")
                + ")",
            )
        )
    hard = groups.get("formula, hard identities", {}).get("per_case_pool", [])
    hard_rows = [[f"`{c['input']}`", c["status"], spread(c), ms(c["max_ms"])] for c in hard]
    text = f"""## Grading

{_machine(result)}

Times in milliseconds, median (p25–p75). "Per call" runs the grader in the calling process (how
the site grades numbers); "pool" sends the call to the grading worker pool ({data["pool_size"]}
workers, hard time and memory limits), which is how the site grades every formula. Throughput is
calls per second: one thread per call, as many threads as workers through the pool. Numbers and
ordinary formulas use distinct inputs per call (a random factor or coefficient), so caches do not
flatter them; the hostile corpus is the grader's own (`tests/grading/test_hostile.py`).

{table(["inputs", "cases", "per call", "p99", "calls/s", "pool", "pool p99", "pool calls/s"], rows)}

Hard identities, each through the pool (the verdict is the grader's):

{table(["response", "status", "median (p25–p75)", "max"], hard_rows)}
"""
    return text, targets


def variants_section(result: dict) -> tuple[str, list[tuple[str, str]]]:
    data = result["data"]
    rows = []
    for slug, entry in data["per_template"].items():
        v = entry["validate"]
        rows.append(
            [
                f"`{slug}`",
                ", ".join(entry["parts"]),
                spread(entry["generate"]),
                spread(entry["generate_and_render"]),
                f"{v['seconds']:.2f} s" + ("" if v["ok"] else f" ({v['failures']} failures)"),
            ]
        )
    command = data["validate_questions_command"]
    seeds = command["seeds"] or 200
    text = f"""## Variant generation and validation

{_machine(result)}

{data["templates"]} templates in `content/questions/` ({data["unparsable_files"]} files that do not
parse). Generation: {data["seeds_per_template"]} seeds per template, milliseconds per variant,
median (p25–p75), drawing the parameters, computing every answer and serialising to JSON;
"with prompt" also renders the prompt. Validation: `validate_template` over
{entry["validate"]["seeds"] if data["per_template"] else 0} seeds in process.

{table(["template", "parts", "generate", "with prompt", "validate"], rows)}

`manage.py validate_questions` over the whole bank ({seeds} seeds per template, a fresh process
including Django start-up): **{command["seconds"]:.1f} s**, exit code {command["exit_code"]}
(`{command["summary"]}`).
"""
    return text, []


SECTIONS = [("grading", grading_section), ("variants", variants_section)]


def build() -> str:
    parts, targets = [], []
    for suite, render in SECTIONS:
        result = _load(suite)
        if result is None:
            parts.append(
                f"## {suite.title()}\n\n_Not run yet: `python -m bench --only {suite}`._\n"
            )
            continue
        text, found = render(result)
        parts.append(text)
        targets += found
    head = """# Benchmarks

Written by `make bench` (`python -m bench`; `--quick` for a short run, `--only SUITE` for one
section) from the raw figures in `bench/results/*.json`. Every figure is measured, never typed:
rerun the command to refresh it. Each section names the date, machine and versions it was
measured with.
"""
    summary = table(["target", "result"], [[name, result] for name, result in targets])
    return head + "\n## Targets\n\n" + summary + "\n\n" + "\n".join(parts)


def write() -> Path:
    DOC.write_text(build())
    print(f"bench: wrote {DOC.relative_to(ROOT)}")
    return DOC
