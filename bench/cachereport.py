"""The report section of the `caches` suite: what each cache on the student's path buys."""

from __future__ import annotations

from bench.report import _machine, table

PAGES = (
    "homework attempt",
    "homework attempt, after a change",
    "exam attempt, after a change",
    "chapter page",
)


def _cell(entry: dict) -> str:
    return f"{entry['ratio']:.1f}× ({entry['ratio_p25']:.1f}–{entry['ratio_p75']:.1f})"


def _by_case(run: dict) -> dict[tuple, dict]:
    return {(c["page"], c["off"]): c for c in run["cases"]}


def pays(cases: dict[tuple, dict], cache: str) -> bool:
    """Whether turning `cache` off slows some page beyond the noise: its block IQR with the
    cache off lies wholly above the page's IQR with every cache on."""
    return any(
        cases[(page, cache)]["ratio_p25"] > cases[(page, None)]["ratio_p75"]
        for page in PAGES
        if (page, cache) in cases
    )


def _run_line(label: str, run: dict) -> str:
    tree = f" on {run['commit']}" if run.get("commit") else ""
    return (
        f"{label}{tree}: started {run['started']}, load average {run['load_start'][0]:.2f} at the "
        f"start and {run['load_end'][0]:.2f} at the end, {run['blocks']} blocks × "
        f"{run['rounds']} rounds"
    )


def caches_section(result: dict, before: dict | None) -> tuple[str, list[tuple[str, str]]]:
    run = result["data"]["sqlite"]
    cases = _by_case(run)
    caches = sorted({c["off"] for c in run["cases"] if c["off"]})
    header = ["turned off", *PAGES, "pays?"]
    rows = [["nothing (every cache on)", *(_cell(cases[(p, None)]) for p in PAGES), ""]]
    for cache in caches:
        rows.append(
            [
                cache,
                *(_cell(cases[(p, cache)]) for p in PAGES),
                "**yes**" if pays(cases, cache) else "no (within the noise)",
            ]
        )
    queries = table(
        ["page", "queries, every cache on"], [[p, str(cases[(p, None)]["queries"])] for p in PAGES]
    )
    runs = [_run_line("This run", run)]
    compare = ""
    if before is not None:
        old = _by_case(before["data"]["sqlite"])
        runs.append(
            _run_line(
                f"before ({before['data'].get('tree', 'the tree before')})",
                before["data"]["sqlite"],
            )
        )
        compare = (
            "\n\nThe same measurement on the tree before the caches moved to "
            "`courseware/caching.py`:\n\n"
            + table(
                ["turned off", *PAGES],
                [["nothing", *(_cell(old[(p, None)]) for p in PAGES)]]
                + [
                    [cache, *(_cell(old[(p, cache)]) if (p, cache) in old else "–" for p in PAGES)]
                    for cache in sorted(
                        {c["off"] for c in before["data"]["sqlite"]["cases"] if c["off"]}
                    )
                ],
            )
        )
    memory = _memory(result["data"].get("fill"))
    text = f"""## What each cache buys, side by side

{_machine(result)}

`python -m bench --only caches` (`bench/cachecost.py`), on SQLite with the ratios suite's demo
class. One process times the floor and each page with every cache on and with one cache turned
off (its function replaced by what it memoises, for that one request only), all in one shuffled
order round after round; a figure is the page's median over the floor's median within a block,
and the table gives the median and interquartile range over the blocks. "After a change" raises
the attempt's `page_stamp` before each request (untimed), as every answer does, so the
whole-page memo misses and the caches under it are what serve the page. A cache **pays** when
its "off" range lies wholly above the "on" range of some page. {"; ".join(runs)}.

Not turned off here: the compiled lookups (`courseware/prepared.py`, `PreparedLookup`) of the
answer posts, the attempt pages (`quizzes/views/targets.py`) and a user's enrolments
(`courseware/roles.py`), measured essential when each came in (commit 18b7b91: the warm attempt
page from 11× to 3.0× the floor, 5 queries to 4; commit 2f55b29, the enrolments: 3.0× to
2.2×; the runs above predate 2f55b29), and the engine's and `content`'s
`functools.lru_cache`s of pure functions (units, expressions, formula LaTeX), bounded by
count, which hold no database state.

{table(header, rows)}

{queries}{compare}
{memory}"""
    return text, []


def _memory(fill: dict | None) -> str:
    if not fill:
        return ""
    rows = [
        [c["name"], f"{c['bound_mb']:.0f}", f"{c['held_mb']:.1f}", str(c["entries"])]
        for c in sorted(fill["caches"], key=lambda c: -c["bound_mb"])
    ]
    return f"""
### A worker's memory with every cache full

`python -m bench.djangoside cachefill` (`bench/cachefill.py`): one process draws the bench's
real attempt page, sections, question view, parsed template, feedback, formula MathML and exam
read-back once, then stores distinct copies under new keys until every cache of
`courseware/caching.py` has turned its bound over twice; the caches made after that list (a
graded exam's results page, question text skeletons, the misconception map's rows and HTML,
chapter headings) are filled with text of the size they keep ({fill["seconds"]:.0f} s). Resident
memory went from **{fill["rss_before_mb"]:.0f} MB to {fill["rss_after_mb"]:.0f} MB**
(+{fill["rss_after_mb"] - fill["rss_before_mb"]:.0f} MB) against the caches' stated total of
**{fill["bound_total_mb"]:.0f} MB**: each entry is counted in bytes when it is stored
(`caching.deep_size`; a parsed template at a measured 100 kB), so what the caches hold, as
counted, cannot grow past that total however many students, pages and answers a term
brings. Beside it Django's own LocMemCache (the shared cache when `REDIS_URL` is not set)
keeps at most its default 300 entries, and the engine's `functools.lru_cache`s their counts.

{table(["cache", "bound MB", "held MB when full", "entries then"], rows)}
"""
