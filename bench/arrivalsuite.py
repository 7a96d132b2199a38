"""The `arrival` suite: `bench.arrival` on SQLite and PostgreSQL, optionally beside an older tree.

As the `postcost` suite does (`bench.postcostsuite`): with `--arrival-before COMMIT` the commit
is exported (`git archive`) into a temporary folder with the current `bench/arrival.py` copied
in (it needs only `bench.djangoside`'s setup, quiz maker and password, `bench.stats` and the
floor in `bench.urls`), each tree gets its own databases prepared by its own code, and the two
trees are measured alternately, current first, `RUNS` runs each, in the same minutes.
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


def run(cluster, args, *, save) -> None:
    """Measure, save `arrival` (and `arrival-before` when a commit is given)."""
    facts = machine.describe(cluster.bin)
    blocks = "4" if args.quick else "6"
    session = time.strftime("%Y-%m-%d %H:%M:%S")
    old = Path(tempfile.mkdtemp(prefix="bench-before.")) if args.arrival_before else None
    scratch = Path(tempfile.mkdtemp(prefix="bench-sqlite."))
    try:
        trees = [("current", ROOT, "bench_arrival")]
        commit = None
        if old:
            commit = export(args.arrival_before, old, "arrival.py")
            trees.append(("before", old, "bench_arrival_before"))
        runs = {tree: {} for tree, _, _ in trees}
        for tree, folder, name in trees:
            for key, url in databases(cluster, name, scratch):
                print(f"bench: arrival, {tree} tree, on {key}: preparing")
                run_json(["bench.djangoside", "prepare"], url, folder)
                runs[tree][key] = {"url": url, "runs": []}
        for key in ("sqlite", "postgresql"):
            for number in range(RUNS):
                for tree, folder, _ in trees:
                    print(f"bench: arrival on {key}: {tree} tree, run {number + 1} of {RUNS}")
                    entry = runs[tree][key]
                    entry["runs"].append(
                        run_json(["bench.arrival"], entry["url"], folder, "--repeat", blocks)
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    for tree, _, _ in trees:
        data = {"session": session, "runs_per_database": RUNS, "alternated": len(trees) > 1}
        data.update({key: entry["runs"] for key, entry in runs[tree].items()})
        data["commit"] = commit if tree == "before" else git("rev-parse", "HEAD")
        if tree == "before":
            data["asked"] = args.arrival_before
            data["subject"] = git("log", "-1", "--format=%s", commit)[:120]
        else:
            data["dirty"] = bool(git("status", "--porcelain", "--untracked-files=no"))
        save(
            "arrival" if tree == "current" else "arrival-before",
            data,
            quick=args.quick,
            machine=facts,
        )
