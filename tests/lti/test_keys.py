"""Keys: the platform's key set kept as its HTTP caching headers say and fetched again for a key
id we do not hold; our own key rotation (published before it signs, old keys kept a while)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from django.core.management import call_command
from django.utils import timezone
from lti_tool.models import Key, LtiRegistration

from lti import keyset
from lti.keyset import MAX_FRESH, MIN_FRESH, freshness
from lti.models import PlatformKeySet
from lti.tool import PUBLISHED_BEFORE_SIGNING, signing_key, tool_registration
from tests.lti.conftest import assert_refused, launch

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "headers, seconds",
    [
        ({}, keyset.DEFAULT_FRESH),
        ({"Cache-Control": "public, max-age=600"}, 600),
        ({"Cache-Control": "max-age=5"}, MIN_FRESH),
        ({"Cache-Control": "max-age=31536000"}, MAX_FRESH),
        ({"Cache-Control": "no-cache"}, MIN_FRESH),
        ({"Cache-Control": "no-store, max-age=600"}, MIN_FRESH),
        ({"Cache-Control": "max-age=soon"}, keyset.DEFAULT_FRESH),
        ({"Expires": format_datetime(NOW + timedelta(hours=2), usegmt=True)}, 7200),
        ({"Expires": "0"}, MIN_FRESH),
        ({"Cache-Control": "max-age=900", "Expires": format_datetime(NOW, usegmt=True)}, 900),
    ],
)
def test_how_long_a_key_set_is_kept_follows_its_caching_headers(headers, seconds):
    assert freshness(headers, NOW) == seconds


pytestmark_db = pytest.mark.django_db(transaction=True)


@pytestmark_db
def test_the_key_set_is_fetched_once_and_kept_as_its_headers_say(platform, course):
    platform.jwks_cache_control = "max-age=900"
    for _ in range(3):
        assert launch(platform).response.status_code == 302
    assert platform.jwks_fetches == 1
    stored = PlatformKeySet.objects.get()
    kept = (stored.fresh_until - stored.fetched_at).total_seconds()
    assert kept == 900
    # Once stale, the next launch asks again, with the ETag: "not modified" keeps the keys.
    PlatformKeySet.objects.update(fresh_until=timezone.now() - timedelta(seconds=1))
    assert launch(platform).response.status_code == 302
    assert (platform.jwks_fetches, platform.jwks_not_modified) == (2, 1)
    assert PlatformKeySet.objects.get().fresh_until > timezone.now()


@pytestmark_db
def test_a_rotated_platform_key_is_fetched_at_once(platform, course):
    platform.jwks_cache_control = "max-age=86400"
    assert launch(platform).response.status_code == 302
    PlatformKeySet.objects.update(fetched_at=timezone.now() - timedelta(minutes=5))
    platform.rotate_key()  # a new kid, before our day-long copy of the key set is stale
    assert launch(platform).response.status_code == 302
    assert platform.jwks_fetches == 2


@pytestmark_db
def test_forged_key_ids_cost_one_fetch_not_one_each(platform, course):
    assert launch(platform).response.status_code == 302
    PlatformKeySet.objects.update(fetched_at=timezone.now() - timedelta(minutes=5))
    platform.rotate_key()
    platform.published_keys = platform.published_keys[:1]  # the new key is never published
    for _ in range(3):
        assert_refused(launch(platform).response, "kid-unknown", claim="kid")
    assert platform.jwks_fetches == 2  # the first launch's, then one refetch for the new kid


@pytestmark_db
def test_a_key_set_that_is_not_one_is_refused_clearly(platform, course):
    platform.published_keys = []
    assert_refused(launch(platform).response, "kid-unknown", claim="kid")
    platform.redirects["/jwks"] = platform.url + "/not-json"
    PlatformKeySet.objects.all().delete()
    assert_refused(launch(platform).response, "keyset", claim="jwks")


@pytestmark_db
def test_a_token_signed_with_none_or_a_shared_secret_is_refused(platform, course):
    import base64
    import json

    done = launch(platform, post=False)
    header, payload, _ = done.form["id_token"].split(".")
    for alg in ("none", "HS256"):
        forged_header = base64.urlsafe_b64encode(
            json.dumps({"alg": alg, "kid": "x", "typ": "JWT"}).encode()
        )
        token = f"{forged_header.rstrip(b'=').decode()}.{payload}."
        assert_refused(done.again(id_token=token), "algorithm", claim="alg")


@pytest.mark.django_db
def test_our_jwks_says_how_long_to_keep_it(client):
    response = client.get("/lti/jwks/")
    assert "max-age=300" in response["Cache-Control"] and "public" in response["Cache-Control"]


@pytest.mark.django_db
def test_a_new_key_of_ours_is_published_before_it_signs(client):
    """After `rotate_keys` the new key is in /lti/jwks/ at once, but the old one signs until
    the new one has been published for longer than a platform may keep our JWKS."""
    old = signing_key()
    Key.objects.filter(pk=old.pk).update(datetime_created=timezone.now() - timedelta(days=1))
    call_command("rotate_keys")
    new = Key.objects.order_by("-datetime_created").first()
    kids = [k["kid"] for k in client.get("/lti/jwks/").json()["keys"]]
    assert new.as_jwk()["kid"] in kids and old.as_jwk()["kid"] in kids
    assert signing_key() == old
    Key.objects.filter(pk=new.pk).update(
        datetime_created=timezone.now() - PUBLISHED_BEFORE_SIGNING - timedelta(seconds=1)
    )
    assert signing_key() == new
    registration = LtiRegistration.objects.create(
        name="x",
        issuer="https://lms.example.edu",
        client_id="c",
        auth_url="https://lms.example.edu/a",
        token_url="https://lms.example.edu/t",
        keyset_url="https://lms.example.edu/k",
    )
    assert tool_registration(registration).get_kid() == new.as_jwk()["kid"]
    # The old key stays published until rotate_keys retires it (after --deactivate-after days).
    call_command("rotate_keys", "--deactivate-after=0")
    assert not Key.objects.get(pk=old.pk).is_active
