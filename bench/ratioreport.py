"""The report section of the `ratios` suite: each page's multiple of the floor, side by side."""

from __future__ import annotations

from bench.report import _machine, ms, table, verdict

ATTEMPTS = ("homework attempt", "exam attempt")


def ratios_section(result: dict) -> tuple[str, list[tuple[str, str]]]:
    data = result["data"]
    rows, targets, loads = [], [], []
    for key, label in (("sqlite", "SQLite"), ("postgresql", "PostgreSQL")):
        run = data.get(key)
        if not run:
            continue
        loads.append(
            f"{label}: started {run['started']}, load average {run['load_start'][0]:.2f} at the "
            f"start and {run['load_end'][0]:.2f} at the end, {run['blocks']} blocks × "
            f"{run['rounds']} rounds"
        )
        for name, entry in run["pages"].items():
            rows.append(
                [
                    label,
                    name,
                    ms(entry["median_ms"]),
                    f"{entry['ratio']:.1f}× ({entry['ratio_p25']:.1f}–{entry['ratio_p75']:.1f})",
                    str(entry["queries"]),
                ]
            )
        for name in ATTEMPTS:
            entry = run["pages"][name]
            targets.append(
                (
                    f"{name} page within 3× the floor ({label}, side by side)",
                    verdict(entry["ratio"] <= 3, f"{entry['ratio']:.1f}×")
                    + f" ({ms(entry['median_ms'])} ms; block IQR "
                    f"{entry['ratio_p25']:.1f}–{entry['ratio_p75']:.1f}×)",
                )
            )
    header = ["database", "page", "median ms", "× floor (block IQR)", "queries"]
    text = f"""## Question page against the floor, side by side

{_machine(result)}

`python -m bench --only ratios`. One process per database requests, round after round in a
shuffled order, the floor (a login-required view returning two bytes through the same
middleware), a student's 8-question homework attempt with a wrong answer on each question, an
exam attempt with an answer saved in every part, the first chapter's page and the gradebook of
the demo class. Eight rounds make a block; a page's ratio is its median over the floor's median
within the same block, and the table gives the median and interquartile range of those ratios
over the blocks. The machine is shared with other work, which moves absolute times a lot and
ratios measured this way little: read the ratios. {"; ".join(loads)}.

{table(header, rows)}
"""
    return text, targets
