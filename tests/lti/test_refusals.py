"""Every refusal's message is in the guide's troubleshooting table, and the refusal page shows
the message and the claim at fault without anything the platform could inject."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import RequestFactory

from lti.refusals import MESSAGES, Refused, refusal_page

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "lti.md"


def test_each_refusal_is_in_the_troubleshooting_table():
    table = GUIDE.read_text().split("## Troubleshooting", 1)[1]
    for code, message in MESSAGES.items():
        headline = message.split(". ", 1)[0].rstrip(".")
        assert f"| {headline}. | `{code}` |" in table, code


@pytest.mark.django_db
def test_the_refusal_page_escapes_what_the_token_said(caplog):
    hostile = "<script>alert(1)</script>"
    refusal = Refused("claim-form", claim="roles", detail=f"got {hostile!r}")
    request = RequestFactory().post("/lti/launch/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    request.session = {}
    response = refusal_page(request, refusal)
    text = response.content.decode()
    assert response.status_code == 400
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;" in text
    assert "the claim at fault is <code>roles</code>" in text
    assert any("LTI refused [claim-form] roles:" in r.getMessage() for r in caplog.records)


@pytest.mark.django_db
def test_a_command_in_a_refusal_reads_as_code_and_the_platforms_text_stays_text(client):
    response = client.get("/lti/login/", {"iss": "https://x.example/`<b>`", "login_hint": "h"})
    text = response.content.decode()
    assert "<code>manage.py lti_add_platform</code>" in text
    assert "`manage.py" not in text
    assert "<b>" not in text and "&lt;b&gt;" in text
