"""Logs and error reports (config/observability.py): a request id on every request and every
log line it writes, JSON lines on request, and Sentry only when SENTRY_DSN is set, without
personal data. Logging and Sentry are set up when the settings load, so the end-to-end cases
run `tests/observability_probe.py` in a process of its own."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.observability import RequestIdFilter, init_sentry, logging_config

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "tests" / "observability_probe.py"
HEX_ID = re.compile(r"^[0-9a-f]{32}$")
UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def probe(**environ: str) -> tuple[dict, list[str]]:
    """Run the probe; (its summary, the log lines it wrote to stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SENTRY_DSN", "LOG_FORMAT")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.observability_probe"],
        cwd=ROOT,
        env={**env, **environ},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr.splitlines()


# -- the request id ---------------------------------------------------------------------------


def test_every_response_carries_a_new_request_id(client):
    first, second = client.get("/healthz"), client.get("/healthz")
    assert HEX_ID.match(first["X-Request-ID"]) and HEX_ID.match(second["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_a_proxys_uuid_is_passed_through(client):
    assert client.get("/healthz", HTTP_X_REQUEST_ID=UUID)["X-Request-ID"] == UUID
    plain = UUID.replace("-", "")  # nginx's $request_id: 32 hex digits
    assert client.get("/healthz", HTTP_X_REQUEST_ID=plain)["X-Request-ID"] == plain


@pytest.mark.parametrize(
    "hostile",
    ["evil\r\nSet-Cookie: x=1", "x" * 5000, "<script>alert(1)</script>", "1 OR 1=1", "ünïcode"],
)
def test_a_request_id_that_is_not_a_uuid_is_replaced_never_echoed(client, hostile):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=hostile)
    assert response.status_code == 200
    assert HEX_ID.match(response["X-Request-ID"]), response["X-Request-ID"]


@pytest.mark.django_db
def test_an_early_answer_carries_the_id_too(client):
    """The id middleware is first: a request a later middleware refuses still has one."""
    response = client.get("/healthz\x00", HTTP_X_REQUEST_ID=UUID)
    assert response.status_code == 400 and response["X-Request-ID"] == UUID


@pytest.mark.django_db
def test_the_id_does_not_outlive_its_request_on_the_thread_that_served_it():
    """A log line a thread writes after serving a request (a gthread worker between requests)
    must not carry that request's id. Served through the WSGI handler, as gunicorn serves it:
    the test client runs each request in a context of its own and would hide the leak."""
    from django.core.handlers.wsgi import WSGIHandler
    from django_guid.context import guid

    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/healthz",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "HTTP_HOST": "localhost",
        "HTTP_X_REQUEST_ID": UUID,
        "wsgi.input": io.BytesIO(),
        "wsgi.url_scheme": "http",
    }
    sent = {}
    WSGIHandler()(environ, lambda status, headers: sent.update(headers))
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "msg", None, None)
    RequestIdFilter().filter(record)
    assert sent["X-Request-ID"] == UUID
    assert guid.get() is None and record.request_id == "-"


def test_a_log_line_outside_any_request_says_so():
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "msg", None, None)
    from django_guid.context import guid

    token = guid.set(None)
    try:
        RequestIdFilter().filter(record)
    finally:
        guid.reset(token)
    assert record.request_id == "-"


# -- the log format ---------------------------------------------------------------------------


def test_text_is_the_default_and_every_line_passes_the_request_id_filter():
    handler = settings.LOGGING["handlers"]["console"]
    assert handler["formatter"] == "text" and handler["filters"] == ["request_id"]
    assert "%(request_id)s" in settings.LOGGING["formatters"]["text"]["format"]


def test_an_unknown_log_format_is_refused():
    with pytest.raises(ImproperlyConfigured, match="LOG_FORMAT must be one of text, json"):
        logging_config(log_format="xml", level="INFO")


def test_json_lines_carry_the_request_id_of_the_request_that_wrote_them():
    summary, lines = probe(LOG_FORMAT="json")
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(records) == len([line for line in lines if line.strip()]), lines  # JSON only
    quiet = [r for r in records if r["message"] == "a quiet view"]
    assert quiet and quiet[0]["request_id"] == UUID == summary["quiet_id"]
    assert set(quiet[0]) >= {"time", "level", "logger", "message", "request_id"}
    # The failing request: the view's own line and Django's error line, one id, the response's.
    boom = [r for r in records if r["request_id"] == summary["boom_id"]]
    assert {r["message"] for r in boom} >= {"inside the view", "Internal Server Error: /boom/"}
    assert summary["boom_status"] == 500 and summary["sentry"] is False and not summary["sent"]


# -- error reports ----------------------------------------------------------------------------


def test_sentry_is_not_started_without_a_dsn():
    assert init_sentry({}) is False
    assert init_sentry({"SENTRY_DSN": "  "}) is False
    import sentry_sdk

    assert not sentry_sdk.is_initialized()  # the test settings set none either


def test_with_a_dsn_errors_are_reported_with_their_request_id_and_no_personal_data():
    summary, _ = probe(SENTRY_DSN="http://public-key@127.0.0.1:9/1")
    assert summary["sentry"] is True
    assert summary["options"] == {
        "send_default_pii": False,
        "max_request_body_size": "never",
        "include_local_variables": False,
    }
    events = [json.loads(item) for item in summary["sent"] if '"exception"' in item]
    assert len(events) == 1, summary["sent"]
    event = events[0]
    assert event["exception"]["values"][-1]["type"] == "RuntimeError"
    assert event["tags"]["request_id"] == summary["boom_id"]
    sent = "\n".join(summary["sent"])
    for personal in ("42.4242", "hunter2", "a-cookie-value", "203.0.113.9"):
        assert personal not in sent, personal
    assert "user" not in event or not event["user"].get("ip_address")
