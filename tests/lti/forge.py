"""A platform without a server, for attacks: its key set stored as if fetched, its tokens
signed here, and each sent through our real login and launch endpoints with Django's test
client. One attack is then a couple of requests, no HTTP server or thread (the demo platform
over HTTP, tests/lti/conftest.py, is for the flows)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import jwt
from django.test import Client
from django.utils import timezone
from jwcrypto.jwk import JWK

from lti.models import LoginState, PlatformKeySet

ISSUER = "https://lms.example.edu"
CLIENT_ID = "tool-client"
DEPLOYMENT = "deployment-1"
KID = "platform-key-1"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def new_key(kid: str = KID) -> tuple[str, dict]:
    """(private PEM, public JWK with its kid) of a fresh RSA key."""
    key = JWK.generate(kty="RSA", size=2048)
    public = key.export_public(as_dict=True)
    return key.export_to_pem(private_key=True, password=None).decode(), {**public, "kid": kid}


class Forge:
    """One registered platform (issuer ISSUER unless told) whose key we hold."""

    def __init__(
        self,
        *,
        issuer=ISSUER,
        client_id=CLIENT_ID,
        deployment=DEPLOYMENT,
        kid=KID,
        allow_local_network=False,
    ):
        from lti.tool import register_platform

        self.issuer, self.client_id, self.deployment, self.kid = issuer, client_id, deployment, kid
        self.registration, _ = register_platform(
            name=f"Forged {issuer}",
            issuer=issuer,
            client_id=client_id,
            deployment_ids=[deployment],
            auth_login_url=f"{issuer}/auth",
            token_url=f"{issuer}/token",
            jwks_url=f"{issuer}/jwks",
            allow_local_network=allow_local_network,
        )
        self.private_pem, self.public_jwk = new_key(kid)
        self.store_keys([self.public_jwk])
        self.link_course()

    def link_course(self, context_id: str = "course-1", offering=None) -> None:
        """Link the LMS course the launches come from to `offering` (the site's default), as
        its first instructor launch would have: these attacks are on the launch itself, so a
        learner's launch must not stop at "this course is not set up yet"."""
        from lti_tool.models import LtiContext, LtiDeployment

        from courseware.models import Offering
        from lti.models import ContextOffering

        offering = offering or Offering.objects.filter(is_default=True).first()
        if offering is None:  # no site course in this test: nothing to link to
            return
        deployment = LtiDeployment.objects.get(
            registration=self.registration, deployment_id=self.deployment
        )
        context, _ = LtiContext.objects.get_or_create(
            deployment=deployment, id_on_platform=context_id, defaults={"title": "Course"}
        )
        ContextOffering.objects.get_or_create(context=context, defaults={"offering": offering})

    def store_keys(self, keys: list[dict], *, fresh_for=timedelta(hours=1), fetched_ago=None):
        now = timezone.now()
        PlatformKeySet.objects.update_or_create(
            registration=self.registration,
            defaults={
                "url": self.registration.keyset_url,
                "keys": keys,
                "etag": "",
                "fetched_at": now - (fetched_ago or timedelta(0)),
                "fresh_until": now + fresh_for,
            },
        )

    # -- the two steps ------------------------------------------------------------------
    def login(self, client: Client, *, secure: bool = False, **params) -> LoginState:
        query = {"iss": self.issuer, "login_hint": "hint", "client_id": self.client_id, **params}
        response = client.get("/lti/login/", query, secure=secure)
        assert response.status_code == 302, response.content[:300]
        state = parse_qs(urlsplit(response["Location"]).query)["state"][0]
        return LoginState.objects.get(state=state)

    def claims(self, state: LoginState | None, *, host="testserver", **overrides) -> dict:
        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": "student-1",
            "iat": now,
            "exp": now + 300,
            "nonce": state.nonce if state else uuid.uuid4().hex,
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment,
            LTI + "target_link_uri": f"http://{host}/lti/launch/",
            LTI + "resource_link": {"id": "link-1"},
            LTI + "roles": [LEARNER],
            LTI + "context": {"id": "course-1", "title": "Course"},
        }
        body.update(overrides)
        return body

    def sign(self, body: dict, *, key: str | None = None, alg="RS256", headers=None) -> str:
        return jwt.encode(
            body,
            key or self.private_pem,
            algorithm=alg,
            headers={"kid": self.kid, **(headers or {})},
        )

    def sign_raw(self, header: dict, body: dict) -> str:
        """RS256 over any header, even one PyJWT would not write (a kid that is no string)."""
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding

        def part(value) -> str:
            raw = value if isinstance(value, bytes) else json.dumps(value).encode()
            return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

        signing_input = f"{part(header)}.{part(body)}"
        key = serialization.load_pem_private_key(self.private_pem.encode(), None)
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{part(signature)}"

    def launch(
        self,
        client: Client,
        *,
        claims: dict | None = None,
        drop=(),
        token: str | None = None,
        state: LoginState | None = None,
        secure: bool = False,
        **sign_options,
    ):
        """Log in, sign a launch for that login (with `claims` changed and `drop` left out)
        and post it; the response."""
        state = state or self.login(client, secure=secure)
        if token is None:
            body = self.claims(state, **(claims or {}))
            for name in drop:
                body.pop(name, None)
            token = self.sign(body, **sign_options)
        return client.post("/lti/launch/", {"id_token": token, "state": state.state}, secure=secure)
