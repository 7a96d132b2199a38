"""`/healthz`: the process is up. `/readyz`: the database, the cache, the task worker and the
checks the apps register (`health.checks`: the formula-grading pool) all work.

Both answer JSON and never need a login; neither says more than a monitor needs (no versions,
no error texts beyond the failing check's kind). Point a load balancer's liveness check at
`/healthz`; alert on `/readyz`, which answers 503 when any check fails (`docs/deploy.md`).
"""

from __future__ import annotations

import uuid

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from health import checks as registered_checks
from health import heartbeat


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        return {"ok": False, "error": type(error).__name__}
    return {"ok": True}


def _cache() -> dict:
    key, value = f"readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    try:
        cache.set(key, value, 10)
        ok = cache.get(key) == value
        cache.delete(key)
    except Exception as error:  # noqa: BLE001 - any cache backend's failure is "not ready"
        return {"ok": False, "error": type(error).__name__}
    return {"ok": ok} if ok else {"ok": False, "error": "value not read back"}


def _worker() -> dict:
    try:
        seen = heartbeat.latest()
    except DatabaseError as error:
        return {"ok": False, "error": type(error).__name__}
    ago = seen.ago_seconds
    return {
        "ok": seen.fresh,
        "state": seen.state,
        "last_seen_seconds_ago": None if ago is None else round(ago, 1),
        "stale_after_seconds": heartbeat.stale_after().total_seconds(),
    }


def _checks() -> dict:
    """Every check by name, in the order reported; the task worker's needs the database."""
    return {
        "database": _database,
        "cache": _cache,
        "task_worker": _worker,
        **registered_checks.registered(),
    }


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """All checks, or only those named in `?checks=a,b` (a load balancer's probe leaves out the
    task worker: one dead worker must not take every server out of the rotation)."""
    available = _checks()
    wanted = [name for name in request.GET.get("checks", "").split(",") if name]
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        body = {"status": "unknown check", "unknown": unknown[:10], "known": list(available)}
        return JsonResponse(body, status=400)
    results: dict[str, dict] = {}
    for name, check in available.items():
        if wanted and name not in wanted:
            continue
        if name == "task_worker":
            database = results["database"] if "database" in results else _database()
            if not database["ok"]:
                results[name] = {"ok": False}
                continue
        results[name] = registered_checks.run(check)
    ready = all(result["ok"] for result in results.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": results},
        status=200 if ready else 503,
    )
