"""Logs and error reports (docs/deploy.md "Logs and errors").

- Every request has an id: django-guid's middleware takes the proxy's `X-Request-ID` when it is
  a UUID (nginx's `$request_id` is), makes one otherwise (a header that is not a UUID is never
  copied into the logs), and returns it in the response's `X-Request-ID`.
- Every log line written while a request is served carries it (`RequestIdFilter`); lines from
  outside a request (the task worker, start-up) carry `-`. django-guid sets the id in a context
  variable and never clears it, so a thread that served a request would stamp its later lines
  outside any request with that request's id; `request_id_middleware` forgets it when the
  response is made.
- `LOG_FORMAT=json` writes one JSON object a line (python-json-logger) for a log shipper,
  Python's warnings included; the default is one line of text.
- Errors go to Sentry only when `SENTRY_DSN` is set, without personal data: no user, address
  or cookies (`send_default_pii=False`), no request bodies (answers, passwords), no local
  variables of the failing frames; each event is tagged with its request id.
"""

from __future__ import annotations

import logging
import logging.config
import os

from django.core.exceptions import ImproperlyConfigured
from django_guid.context import guid
from django_guid.log_filters import CorrelationId

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"
JSON_FIELDS = ["asctime", "levelname", "name", "message", "request_id"]


def request_id_middleware(get_response):
    """django-guid's middleware (the id in, the id out in `X-Request-ID`), and the id forgotten
    once the response is made, so it cannot outlive its request on the thread that served it."""
    # Imported here: django-guid reads its settings when its middleware module is imported,
    # and this module is imported by the settings before DJANGO_GUID is defined.
    from django_guid.middleware import guid_middleware

    inner = guid_middleware(get_response)

    def middleware(request):
        token = guid.set(None)
        try:
            return inner(request)
        finally:
            guid.reset(token)

    return middleware


class RequestIdFilter(CorrelationId):
    """Adds `request_id` to every record: the id of the request being served, or "-"."""

    def __init__(self) -> None:
        super().__init__(correlation_id_field="request_id")

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        if record.request_id is None:
            record.request_id = "-"
        return True


def logging_config(*, log_format: str, level: str) -> dict:
    """Django's LOGGING: the console, in `log_format` ("text" or "json"), every line with its
    request id."""
    if log_format not in LOG_FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}.")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {
            "text": {"format": TEXT_FORMAT},
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": JSON_FIELDS,
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            },
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["request_id"],
                "formatter": log_format,
            }
        },
        "root": {"handlers": ["console"], "level": level},
    }


def configure(config: dict) -> None:
    """Django's LOGGING_CONFIG: the dict, and Python's warnings through it too (a warning
    printed raw would break a JSON log stream)."""
    logging.config.dictConfig(config)
    logging.captureWarnings(True)


def _tag_request_id(event: dict, hint: dict) -> dict:
    request_id = guid.get()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event


def init_sentry(environ=os.environ) -> bool:
    """Start error reporting when `SENTRY_DSN` is set; True when it was started."""
    dsn = environ.get("SENTRY_DSN", "").strip()
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration()],
        environment=environ.get("SENTRY_ENVIRONMENT") or None,
        release=environ.get("SENTRY_RELEASE") or None,
        # Errors only unless asked: tracing costs every request some CPU.
        traces_sample_rate=float(environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
        # Students' data stays here: no user, IP address, cookies or headers that identify,
        # no request bodies (answers, passwords), no local variables of the failing frames.
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        before_send=_tag_request_id,
    )
    return True
