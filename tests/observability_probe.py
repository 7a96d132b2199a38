"""Run by tests/test_observability.py in a process of its own, since logging and Sentry are
set up when the settings load: serves requests through Django's test client and prints, as the
last line of stdout, a JSON summary of what the process set up and what Sentry would have sent
(its transport is replaced, so nothing leaves the machine)."""

from __future__ import annotations

import json
import os
import sys
import types

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import logging  # noqa: E402

import sentry_sdk  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import path  # noqa: E402

SECRET_ANSWER = "42.4242 GB/s secret answer"
REQUEST_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"


class Captured:
    """Stands in for Sentry's transport: keeps each envelope's items as JSON text."""

    def __init__(self):
        self.sent: list[str] = []

    def capture_envelope(self, envelope):
        for item in envelope.items:
            self.sent.append(item.get_bytes().decode("utf-8", "replace"))

    def flush(self, *args, **kwargs):
        return None

    def kill(self):
        return None

    def record_lost_event(self, *args, **kwargs):
        return None

    def is_healthy(self):
        return True


def logs_and_fails(request):
    logging.getLogger("quizzes.probe").warning("inside the view")
    raise RuntimeError("the probe's failure")


def quiet(request):
    logging.getLogger("quizzes.probe").warning("a quiet view")
    return HttpResponse("ok")


urls = types.ModuleType("probe_urls")
urls.urlpatterns = [path("boom/", logs_and_fails), path("quiet/", quiet)]


def main() -> None:
    setup_test_environment()
    captured = Captured()
    client = sentry_sdk.get_client()
    if client.is_active():
        client.transport = captured
    browser = Client(raise_request_exception=False)
    browser.cookies["preferences"] = "a-cookie-value"
    from django.conf import settings

    # Plain static names: the error page links the stylesheet, and no collectstatic ran here.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(ROOT_URLCONF=urls, STORAGES=storages):
        quiet_response = browser.get("/quiet/", HTTP_X_REQUEST_ID=REQUEST_ID)
        boom = browser.post(
            "/boom/",
            {"answer": SECRET_ANSWER, "password": "hunter2-password"},
            HTTP_X_FORWARDED_FOR="203.0.113.9",
        )
    sentry_sdk.flush()
    print(
        json.dumps(
            {
                "sentry": sentry_sdk.is_initialized(),
                "options": {
                    key: client.options.get(key)
                    for key in ("send_default_pii", "max_request_body_size")
                    + ("include_local_variables",)
                }
                if client.is_active()
                else {},
                "quiet_id": quiet_response.headers.get("X-Request-ID"),
                "boom_status": boom.status_code,
                "boom_id": boom.headers.get("X-Request-ID"),
                "sent": captured.sent,
            }
        )
    )


if __name__ == "__main__":
    main()
    sys.stdout.flush()
