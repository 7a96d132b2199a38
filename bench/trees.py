"""Running a bench beside an older tree: export a commit's tree, run a bench module in either tree
against a database, and name the two databases (SQLite in a scratch folder, PostgreSQL in the
cluster) each tree measures on. Shared by the side-by-side suites (arrival, post cost, ratios)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_json(module: list[str], url: str, tree: Path, *options: str) -> dict:
    """`python -m MODULE --out FILE OPTIONS` in `tree` against the database `url`; its JSON."""
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


def export(commit: str, folder: Path, bench_file: str) -> str:
    """The commit's tree into `folder`, with today's `bench/<bench_file>` (so both trees run the
    same measurement); the commit's full hash."""
    full = subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    archive = subprocess.run(["git", "archive", full], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    shutil.copy(ROOT / "bench" / bench_file, folder / "bench" / bench_file)
    return full


def databases(cluster, name: str, scratch: Path) -> list[tuple[str, str]]:
    """The tree's two databases: a SQLite file in `scratch` and `name` in the cluster."""
    sqlite = scratch / f"{name}.sqlite3"
    return [("sqlite", f"sqlite:///{sqlite}"), ("postgresql", cluster.create_database(name))]


def git(*command: str) -> str:
    """`git COMMAND` in this checkout; its output, stripped."""
    return subprocess.run(
        ["git", *command], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
