"""The `ratios` suite: `bench.ratios` on SQLite and PostgreSQL, optionally beside an older tree.

As the `arrival` and `postcost` suites do: with `--ratios-before COMMIT` the commit is exported
(`git archive`) into a temporary folder with the current `bench/ratios.py` copied in (it needs
only `bench.djangoside`'s setup and quiz maker, `bench.stats` and the floor in `bench.urls`),
each tree gets its own databases prepared and seeded by its own code, and the two trees are
measured alternately, current first, `RUNS` runs each, in the same minutes. Without a commit
one run per database, as before.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from bench import machine
from bench.trees import databases, export, git, run_json

ROOT = Path(__file__).resolve().parent.parent
RUNS = 2
SEEDED_STUDENTS = "30"


def run(cluster, args, *, save) -> None:
    """Measure, save `ratios` (and `ratios-before` when a commit is given)."""
    facts = machine.describe(cluster.bin)
    blocks = "6" if args.quick else "16"
    session = time.strftime("%Y-%m-%d %H:%M:%S")
    old = Path(tempfile.mkdtemp(prefix="bench-before.")) if args.ratios_before else None
    scratch = Path(tempfile.mkdtemp(prefix="bench-sqlite."))
    try:
        trees = [("current", ROOT, "bench_ratios")]
        commit = None
        if old:
            commit = export(args.ratios_before, old, "ratios.py")
            trees.append(("before", old, "bench_ratios_before"))
        runs = {tree: {} for tree, _, _ in trees}
        for tree, folder, name in trees:
            for key, url in databases(cluster, name, scratch):
                print(f"bench: ratios, {tree} tree, on {key}: preparing")
                run_json(["bench.djangoside", "prepare"], url, folder)
                run_json(["bench.djangoside", "seed"], url, folder, "--students", SEEDED_STUDENTS)
                runs[tree][key] = {"url": url, "runs": []}
        for key in ("sqlite", "postgresql"):
            for number in range(RUNS if old else 1):
                for tree, folder, _ in trees:
                    print(f"bench: ratios on {key}: {tree} tree, run {number + 1}")
                    entry = runs[tree][key]
                    entry["runs"].append(
                        run_json(
                            ["bench.djangoside", "ratios"], entry["url"], folder, "--repeat", blocks
                        )
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    for tree, _, _ in trees:
        data = {"session": session, "alternated": len(trees) > 1}
        # The report's table reads one run per database: the last (both trees had as many).
        data.update({key: entry["runs"][-1] for key, entry in runs[tree].items()})
        data["runs"] = {key: entry["runs"] for key, entry in runs[tree].items()}
        data["commit"] = commit if tree == "before" else git("rev-parse", "HEAD")
        if tree == "before":
            data["asked"] = args.ratios_before
            data["subject"] = git("log", "-1", "--format=%s", commit)[:120]
        else:
            data["dirty"] = bool(git("status", "--porcelain", "--untracked-files=no"))
        save(
            "ratios" if tree == "current" else "ratios-before",
            data,
            quick=args.quick,
            machine=facts,
        )
