"""Token forgery and key confusion, and the platform's key set under a flood: every forged or
confused token is refused with its reason, and a key set that cannot be fetched is not fetched
again for each launch. Forged tokens through the real endpoints (tests/lti/forge.py)."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import jwt
import pytest
import requests
from django.test import Client
from jwcrypto.jwk import JWK

from lti import keyset
from lti.models import PlatformKeySet
from tests.lti.conftest import assert_refused
from tests.lti.forge import Forge, new_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def forge(course):
    return Forge()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(header: dict, body: dict, signature: bytes = b"") -> str:
    return ".".join(
        [_b64(json.dumps(header).encode()), _b64(json.dumps(body).encode()), _b64(signature)]
    )


class CountingSession:
    """A platform session whose key set never answers, counting the attempts."""

    attempts = 0

    def __init__(self, registration):
        pass

    def get(self, url, **kwargs):
        CountingSession.attempts += 1
        raise requests.ConnectionError(f"{url}: connection refused")


def test_a_key_set_that_fails_is_not_fetched_again_for_each_launch(forge, monkeypatch):
    """A launch naming a key id we do not hold fetches the key set again, once per 30 s: but
    only a fetch that succeeded counted, so while the platform's key set failed (or hung for
    its whole deadline) every forged key id cost a fetch, and a worker."""
    CountingSession.attempts = 0
    monkeypatch.setattr(keyset, "session_for", CountingSession)
    forge.store_keys([forge.public_jwk], fetched_ago=timedelta(minutes=5))
    for _ in range(5):
        response = forge.launch(Client(), headers={"kid": "made-up"})
        assert_refused(response, "keyset", claim="jwks")
    assert CountingSession.attempts == 1
    # Nor a stale key set, fetched again on each launch while the platform is down.
    PlatformKeySet.objects.all().delete()
    for _ in range(3):
        assert_refused(forge.launch(Client()), "keyset", claim="jwks")
    assert CountingSession.attempts == 1


def test_once_the_wait_is_over_the_key_set_is_tried_again(forge, monkeypatch):
    from django.core.cache import cache

    CountingSession.attempts = 0
    monkeypatch.setattr(keyset, "session_for", CountingSession)
    PlatformKeySet.objects.all().delete()
    assert_refused(forge.launch(Client()), "keyset", claim="jwks")
    cache.clear()  # REFETCH_SECONDS later
    assert_refused(forge.launch(Client()), "keyset", claim="jwks")
    assert CountingSession.attempts == 2


# -- attacks that held ---------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["none", "None", "HS256", "HS512", "EdDSA", "", None, ["RS256"]])
def test_a_token_whose_algorithm_is_not_an_asymmetric_one_we_take_is_refused(forge, alg):
    client = Client()
    state = forge.login(client)
    token = unsigned({"alg": alg, "kid": forge.kid, "typ": "JWT"}, forge.claims(state), b"sig")
    assert_refused(forge.launch(client, state=state, token=token), "algorithm", claim="alg")


def test_the_platforms_public_key_as_an_hmac_secret_is_refused(forge):
    """The classic confusion: HS256 signed with the PEM of the public key."""
    client = Client()
    state = forge.login(client)
    public_pem = JWK(**forge.public_jwk).export_to_pem().decode()
    header = _b64(json.dumps({"alg": "HS256", "kid": forge.kid, "typ": "JWT"}).encode())
    body = _b64(json.dumps(forge.claims(state)).encode())
    import hashlib
    import hmac

    mac = hmac.new(public_pem.encode(), f"{header}.{body}".encode(), hashlib.sha256).digest()
    token = f"{header}.{body}.{_b64(mac)}"
    assert_refused(forge.launch(client, state=state, token=token), "algorithm", claim="alg")


@pytest.mark.parametrize("field", ["jku", "x5u", "jwk"])
def test_a_key_named_or_carried_by_the_token_itself_is_never_used(forge, field):
    """jku/x5u (a key set of the attacker's choosing) and an embedded jwk are ignored: the
    key is the registration's, for the token's kid."""
    attacker_pem, attacker_jwk = new_key(forge.kid)
    value = attacker_jwk if field == "jwk" else "https://evil.example/jwks.json"
    response = forge.launch(Client(), key=attacker_pem, headers={field: value})
    assert_refused(response, "signature", claim="signature")


@pytest.mark.parametrize(
    "kid",
    [
        "../../etc/passwd",
        "' OR '1'='1",
        "k" * 5000,
        "platform-key-1\x00",
        5,
        ["platform-key-1"],
        {},
    ],
)
def test_a_made_up_key_id_is_refused_and_shown_only_in_part(forge, kid):
    client = Client()
    state = forge.login(client)
    token = forge.sign_raw({"alg": "RS256", "typ": "JWT", "kid": kid}, forge.claims(state))
    response = forge.launch(client, state=state, token=token)
    if isinstance(kid, str):
        assert_refused(response, "kid-unknown", claim="kid")
        assert "k" * 100 not in response.text
    else:
        assert_refused(response, "token-format", claim="id_token")


def test_a_token_without_a_key_id_is_refused(forge):
    client = Client()
    state = forge.login(client)
    token = jwt.encode(forge.claims(state), forge.private_pem, algorithm="RS256")
    assert_refused(forge.launch(client, state=state, token=token), "kid-missing", claim="kid")


def test_another_registrations_key_does_not_sign_for_this_one(forge):
    """Two platforms, each with its key: the second's key, under the second's key id, signs a
    launch claiming to be the first (its issuer, our client id there)."""
    other = Forge(issuer="https://other-lms.example.org", client_id="other", kid="other-key")
    response = forge.launch(Client(), key=other.private_pem, headers={"kid": other.kid})
    assert_refused(response, "kid-unknown", claim="kid")
    # And under the first one's key id, the signature does not verify.
    response = forge.launch(Client(), key=other.private_pem)
    assert_refused(response, "signature", claim="signature")


def test_a_key_the_platform_no_longer_publishes_signs_nothing(forge):
    old_pem = forge.private_pem
    forge.private_pem, forge.public_jwk = new_key("platform-key-2")
    forge.kid = "platform-key-2"
    forge.store_keys([forge.public_jwk])  # the old key is gone from the key set
    response = forge.launch(Client(), key=old_pem, headers={"kid": "platform-key-1"})
    assert_refused(response, "kid-unknown", claim="kid")
    assert forge.launch(Client()).status_code == 302


@pytest.mark.parametrize(
    "published",
    [
        {"alg": "RS512"},  # published for another algorithm than the token's
        {"use": "enc"},  # an encryption key
        {"kty": "oct", "k": "c2VjcmV0"},  # a symmetric key in the key set
    ],
)
def test_a_published_key_of_another_use_or_kind_is_not_taken(forge, published):
    forge.store_keys([{**forge.public_jwk, **published}])
    response = forge.launch(Client())
    assert response.status_code == 400
    assert (
        "refusal <code>kid-unknown</code>" in response.text
        or "refusal <code>keyset</code>" in response.text
    )


def test_an_ec_token_against_an_rsa_key_is_refused(forge):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    ec_pem = (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )
    response = forge.launch(Client(), key=ec_pem, alg="ES256")
    assert_refused(response, "keyset", claim="jwks")


def test_a_huge_token_is_refused_by_size_before_it_is_read(forge):
    """A token within the request size limit (2 MB) is checked as any other; past it, the
    request is refused before a byte is decoded."""
    assert forge.launch(Client(), claims={"padding": "p" * 1_000_000}).status_code == 302
    response = forge.launch(Client(), claims={"padding": "p" * 2_000_000})
    assert response.status_code == 400 and "Traceback" not in response.text
