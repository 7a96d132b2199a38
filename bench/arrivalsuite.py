"""The `arrival` suite: `bench.arrival` on SQLite and PostgreSQL, optionally beside an older tree.

As the `postcost` suite does (`bench.postcostsuite`): with `--arrival-before COMMIT` the commit
is exported (`git archive`) into a temporary folder with the current `bench/arrival.py` copied
in (it needs only `bench.djangoside`'s setup, quiz maker and password, `bench.stats` and the
floor in `bench.urls`), each tree gets its own databases prepared by its own code, and the two
trees are measured alternately, current first, `RUNS` runs each, in the same minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import machine
from bench.postcostsuite import _databases

ROOT = Path(__file__).resolve().parent.parent
RUNS = 2


def _django(module: list[str], url: str, tree: Path, *options: str) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    try:
        subprocess.run(
            [sys.executable, "-m", *module, "--out", path, *options],
            cwd=tree,
            env={**os.environ, "DATABASE_URL": url},
            check=True,
        )
        return json.loads(Path(path).read_text())
    finally:
        os.unlink(path)


def _git(*command: str) -> str:
    return subprocess.run(
        ["git", *command], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def export(commit: str, folder: Path) -> str:
    """The commit's tree into `folder`, with the current arrival bench; the full hash."""
    full = _git("rev-parse", "--verify", f"{commit}^{{commit}}")
    archive = subprocess.run(["git", "archive", full], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    shutil.copy(ROOT / "bench" / "arrival.py", folder / "bench" / "arrival.py")
    return full


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
            commit = export(args.arrival_before, old)
            trees.append(("before", old, "bench_arrival_before"))
        runs = {tree: {} for tree, _, _ in trees}
        for tree, folder, name in trees:
            for key, url in _databases(cluster, name, scratch):
                print(f"bench: arrival, {tree} tree, on {key}: preparing")
                _django(["bench.djangoside", "prepare"], url, folder)
                runs[tree][key] = {"url": url, "runs": []}
        for key in ("sqlite", "postgresql"):
            for number in range(RUNS):
                for tree, folder, _ in trees:
                    print(f"bench: arrival on {key}: {tree} tree, run {number + 1} of {RUNS}")
                    entry = runs[tree][key]
                    entry["runs"].append(
                        _django(["bench.arrival"], entry["url"], folder, "--repeat", blocks)
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    for tree, _, _ in trees:
        data = {"session": session, "runs_per_database": RUNS, "alternated": len(trees) > 1}
        data.update({key: entry["runs"] for key, entry in runs[tree].items()})
        data["commit"] = commit if tree == "before" else _git("rev-parse", "HEAD")
        if tree == "before":
            data["asked"] = args.arrival_before
            data["subject"] = _git("log", "-1", "--format=%s", commit)[:120]
        else:
            data["dirty"] = bool(_git("status", "--porcelain", "--untracked-files=no"))
        save(
            "arrival" if tree == "current" else "arrival-before",
            data,
            quick=args.quick,
            machine=facts,
        )
