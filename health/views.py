"""`/healthz`: the process is up. `/readyz`: the database, the cache and the task worker work.

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


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database(), "cache": _cache()}
    checks["worker"] = _worker() if checks["database"]["ok"] else {"ok": False}
    ready = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )
