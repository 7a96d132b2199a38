"""The `postcost` suite: `bench.postcost` on SQLite and PostgreSQL, optionally beside an older tree.

With `--postcost-before COMMIT` the commit is exported (`git archive`) into a temporary folder,
the current `bench/postcost.py` is copied into it (it runs in an older checkout: it needs only
`bench.djangoside`'s setup and quiz maker, `bench.stats` and the floor in `bench.urls`), and each
tree gets its own database prepared by its own code (its own migrations). The two trees are then
measured alternately, current first, `RUNS` runs each, on the same database server in the same
minutes; the exported tree and the SQLite files are removed at the end, even on failure.
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
    """Measure, save `postcost` (and `postcost-before` when a commit is given)."""
    facts = machine.describe(cluster.bin)
    blocks = "4" if args.quick else "6"
    session = time.strftime("%Y-%m-%d %H:%M:%S")
    old = Path(tempfile.mkdtemp(prefix="bench-before.")) if args.postcost_before else None
    scratch = Path(tempfile.mkdtemp(prefix="bench-sqlite."))
    try:
        trees = [("current", ROOT, "bench_postcost")]
        commit = None
        if old:
            commit = export(args.postcost_before, old, "postcost.py")
            trees.append(("before", old, "bench_postcost_before"))
        runs = {tree: {} for tree, _, _ in trees}
        for tree, folder, name in trees:
            for key, url in databases(cluster, name, scratch):
                print(f"bench: postcost, {tree} tree, on {key}: preparing")
                run_json(["bench.djangoside", "prepare"], url, folder)
                runs[tree][key] = {"url": url, "runs": []}
        for key in ("sqlite", "postgresql"):
            for number in range(RUNS):
                for tree, folder, _ in trees:
                    print(f"bench: postcost on {key}: {tree} tree, run {number + 1} of {RUNS}")
                    entry = runs[tree][key]
                    entry["runs"].append(
                        run_json(["bench.postcost"], entry["url"], folder, "--repeat", blocks)
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    for tree, _, _ in trees:
        data = {"session": session, "runs_per_database": RUNS, "alternated": len(trees) > 1}
        data.update({key: entry["runs"] for key, entry in runs[tree].items()})
        if tree == "before":
            data["commit"] = commit
            data["asked"] = args.postcost_before
            data["subject"] = git("log", "-1", "--format=%s", commit)[:120]
        save(
            "postcost" if tree == "current" else "postcost-before",
            data,
            quick=args.quick,
            machine=facts,
        )
