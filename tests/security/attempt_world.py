"""What the attempt attack tests share (test_attack_own_attempt, test_attack_attempt_terms,
test_attack_prepared_lookups): a signed-in client, every URL that names an attempt, what those
URLs could change, and a warm page."""

from __future__ import annotations

import uuid

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, SavedAnswer
from tests.factories import OFFERING

# The URLs take any run of digits; an id column holds 64 bits. SQLite's driver refuses to send
# a larger Python int (OverflowError), which the ORM never asks it to (Django answers an
# out-of-range lookup with no rows) but the prepared lookups did: a 500 on SQLite.
HUGE = [2**63, 10**20, 10**40]


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def attempt_urls(attempt_id, variant_id, part="t", offering=OFFERING) -> list[tuple[str, str]]:
    """Every student URL that names an attempt (the first three) and a variant of it."""
    part_args = [offering, attempt_id, variant_id, part]
    return [
        ("get", reverse("quizzes:attempt_detail", args=[offering, attempt_id])),
        ("get", reverse("quizzes:attempt_results", args=[offering, attempt_id])),
        ("post", reverse("quizzes:submit_attempt", args=[offering, attempt_id])),
        ("post", reverse("quizzes:submit_part", args=part_args)),
        ("get", reverse("quizzes:preview_part", args=part_args) + "?answer=2"),
        ("post", reverse("quizzes:autosave", args=part_args)),
        ("post", reverse("quizzes:new_variant", args=[offering, attempt_id, variant_id])),
    ]


def send(client, method, url, **extra):
    data = {"answer": "2 s", "idempotency_key": uuid.uuid4().hex, "sequence": "1"}
    return getattr(client, method)(url, data if method == "post" else None, **extra)


def stored():
    """Everything an attempt URL could change."""
    return (
        list(Attempt.objects.order_by("pk").values_list("pk", "status", "score", "page_stamp")),
        list(SavedAnswer.objects.order_by("pk").values_list("pk", "raw")),
        sorted(Attempt.objects.values_list("variants__pk", "variants__responses__pk")),
    )


def warm(client, attempt) -> str:
    """The attempt page drawn, then read again from the memo; the memo's page."""
    first = client.get(attempt.get_absolute_url())
    with CaptureQueriesContext(connection) as queries:
        second = client.get(attempt.get_absolute_url())
    assert first.status_code == second.status_code == 200
    assert len(queries) == 4  # the memo's page
    return second.content.decode()


def at(monkeypatch, moment) -> None:
    """The clock reads `moment` from now on (Django's, which the views and rows use)."""
    monkeypatch.setattr(timezone, "now", lambda: moment)
