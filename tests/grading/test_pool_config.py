"""The pool is a pure executor: it imports no grader (so no import cycle with the formula
grader), and what it preloads, warms with and how large it is come from its configuration."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from quizzes.grading import pool, warming

POOL = Path(pool.__file__)


def test_the_pool_module_imports_no_grader():
    tree = ast.parse(POOL.read_text(encoding="utf-8"))
    imported = {
        (node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not {name for name in imported if "formula" in name or "numeric" in name}
    assert imported <= {
        "__future__",
        "atexit",
        "contextlib",
        "multiprocessing",
        "os",
        "queue",
        "signal",
        "threading",
        "collections.abc",
        "dataclasses",
        "results",
        "resource",
    }


def test_the_grading_package_configures_its_warm_up_and_preload():
    current = pool.current_settings()
    assert current.warm_up is warming.warm_up
    assert "quizzes.grading.formula" in current.preload


@pytest.fixture
def restore_settings():
    saved = pool.current_settings()
    yield
    pool._settings = saved


def test_configured_values_win_over_the_environment_and_unset_ones_read_it(
    restore_settings, monkeypatch
):
    monkeypatch.setenv("GRADING_POOL_SIZE", "3")
    monkeypatch.setenv("GRADING_TIMEOUT", "1.5")
    pool.configure(size=1)
    assert pool.current_settings().pool_size() == 1
    assert pool.current_settings().call_timeout() == 1.5
    pool.configure(inline=True)
    monkeypatch.delenv("GRADING_INLINE", raising=False)
    assert pool.runs_inline()
