"""Readiness checks that the apps register for `/readyz`, beside its own (database, cache,
task worker): health imports none of the apps, so an app that owns something a server needs
before it takes traffic (the quizzes app's formula-grading pool) registers a check here from its
`AppConfig.ready`.

A check is a callable returning a dict with at least `ok`; one that raises is reported as not
ready with the exception's class name only.
"""

from __future__ import annotations

from collections.abc import Callable

Check = Callable[[], dict]

_checks: dict[str, Check] = {}


def register(name: str, check: Check) -> None:
    """Add (or replace) the check reported under `name` in `/readyz`'s JSON."""
    _checks[name] = check


def registered() -> dict[str, Check]:
    return dict(_checks)


def run(check: Check) -> dict:
    """A check's result with `ok` a bool; a check that raises is not ready, and says only the
    exception's class (never its text, which may carry a connection string)."""
    try:
        result = dict(check())
    except Exception as error:  # noqa: BLE001 - a failing check is "not ready", never a 500
        result = {"ok": False, "error": type(error).__name__}
    result["ok"] = bool(result.get("ok"))
    return result
