"""Registration: the command, the tool's endpoints, its keys and their rotation."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from lti.models import PlatformFraming
from lti.tool import tool_registration

pytestmark = pytest.mark.django_db

ARGS = [
    "--issuer=https://lms.example.edu",
    "--client-id=abc123",
    "--deployment-id=1:one",
    "--deployment-id=2:two",
    "--auth-login-url=https://lms.example.edu/auth",
    "--token-url=https://lms.example.edu/token",
    "--jwks-url=https://lms.example.edu/jwks",
]


def test_add_platform_registers_every_deployment_active_and_a_key_once():
    call_command("lti_add_platform", *ARGS)
    call_command("lti_add_platform", *ARGS)  # repeatable: updates, never duplicates
    registration = LtiRegistration.objects.get()
    assert (registration.issuer, registration.client_id) == ("https://lms.example.edu", "abc123")
    deployments = LtiDeployment.objects.filter(registration=registration).order_by("deployment_id")
    assert [(d.deployment_id, d.is_active) for d in deployments] == [
        ("1:one", True),
        ("2:two", True),
    ]
    assert Key.objects.count() == 1
    assert PlatformFraming.objects.get().origins == ["https://lms.example.edu"]


def test_add_platform_refuses_a_url_that_is_not_one():
    with pytest.raises(CommandError, match="--token-url"):
        call_command("lti_add_platform", *ARGS[:5], "--token-url=javascript:alert(1)", ARGS[6])
    assert not LtiRegistration.objects.exists()


def test_jwks_publishes_public_keys_only(client):
    response = client.get("/lti/jwks/")
    assert response.status_code == 200
    keys = response.json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256"
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(keys[0]), "a private part is published"


def test_rotation_keeps_the_old_key_published_and_signing_until_the_new_is_known(client):
    old = client.get("/lti/jwks/").json()["keys"][0]["kid"]
    call_command("rotate_keys")
    kids = [k["kid"] for k in client.get("/lti/jwks/").json()["keys"]]
    assert old in kids and len(kids) == 2, "a launch in flight signed by the old key must verify"
    call_command("lti_add_platform", *ARGS)
    # The new key signs once platforms have had time to fetch it (tests/lti/test_keys.py).
    signing = tool_registration(LtiRegistration.objects.get()).get_kid()
    assert signing == old and signing in kids


def test_configuration_page_is_for_administrators_only(client, student, admin_client):
    client.force_login(student)
    assert client.get("/lti/configuration/").status_code == 302  # to the admin login
    page = admin_client.get("/lti/configuration/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "http://testserver/lti/login/" in text and "oidc_initiation_url" in text
    assert "Initiate login URL" in text and "http://testserver/lti/jwks/" in text
    assert "--token-audience" in text and "signs now" in text
    assert "PRIVATE KEY" not in text


def test_admin_registration_form_has_no_private_key_field(admin_client):
    call_command("lti_add_platform", *ARGS)
    registration = LtiRegistration.objects.get()
    page = admin_client.get(f"/admin/lti_tool/ltiregistration/{registration.pk}/change/")
    assert page.status_code == 200
    assert 'name="private_key"' not in page.content.decode()


def test_the_demo_lms_calls_itself_what_make_lti_demo_registers(tmp_path):
    """`make lti-demo` registers http://127.0.0.1:LTI_PORT as a local demo; the demo platform on
    a given port must sign as that issuer and serve there, or every demo launch is refused."""
    import socket
    from pathlib import Path

    from lti.demo_platform import DemoPlatform

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    recipe = makefile.split("lti-demo: ", 1)[1].split("\n\n", 1)[0]
    assert "lms=http://127.0.0.1:$(LTI_PORT)" in recipe and "--issuer $$lms" in recipe
    assert "--allow-local-network" in recipe
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lms = DemoPlatform("http://127.0.0.1:8000", port=port)
    try:
        args = lms.registration_args()
        assert args["issuer"] == f"http://127.0.0.1:{port}" == lms.service_url
        assert args["auth_login_url"] == f"http://127.0.0.1:{port}/auth"
    finally:
        lms._server.server_close()
