"""A platform's public keys (its JWKS), as the launch check needs them.

Fetched through the platform's checked session (lti.network), kept in the database (every
worker and server shares one copy) for as long as the key set's HTTP caching headers say,
within bounds, and revalidated with its ETag. A launch signed with a key id we do not hold
fetches the set again at once (the platform rotated its key), but at most once per
REFETCH_SECONDS, so a stream of forged key ids costs one fetch, not one each.
"""

from __future__ import annotations

import json
from datetime import timedelta
from email.utils import parsedate_to_datetime

import jwt
import requests
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from lti.models import PlatformKeySet
from lti.network import nested_too_deep, session_for
from lti.refusals import Refused

# Bounds on how long a fetched key set is used (seconds): even "no-cache" keeps it a minute
# (a class launching together is one fetch); a day at most, so a withdrawn key goes within a
# day; an hour when the platform says nothing.
MIN_FRESH = 60
DEFAULT_FRESH = 3600
MAX_FRESH = 86400
REFETCH_SECONDS = 30
# A key set is a few kilobytes; a platform that sends more is not sending keys.
MAX_BYTES = 512 * 1024
# Signature algorithms a platform may use (LTI 1.3 requires RS256; the others are asymmetric
# too). Never HS* (a public key would become a shared secret) nor "none".
ALGORITHMS = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}


def freshness(headers, now) -> int:
    """Seconds a response may be used, from Cache-Control (max-age, no-cache, no-store) or
    Expires, clamped to [MIN_FRESH, MAX_FRESH]."""
    directives = {}
    for part in (headers.get("Cache-Control") or "").split(","):
        name, _, value = part.strip().partition("=")
        if name:
            directives[name.lower()] = value.strip().strip('"')
    if "no-store" in directives or "no-cache" in directives:
        return MIN_FRESH
    seconds = None
    if "max-age" in directives:
        try:
            seconds = int(directives["max-age"])
        except ValueError:
            seconds = None
    if seconds is None and headers.get("Expires"):
        try:
            expires = parsedate_to_datetime(headers["Expires"])
            seconds = int((expires - now).total_seconds())
        except (TypeError, ValueError):
            seconds = 0  # an invalid Expires means "already expired" (RFC 9111 5.3)
    if seconds is None:
        seconds = DEFAULT_FRESH
    return max(MIN_FRESH, min(MAX_FRESH, seconds))


def _read(response: requests.Response, url: str) -> list:
    # Through requests, so an answer cut short is a RequestException (urllib3's own errors
    # would escape the launch as a 500).
    body = bytearray()
    for chunk in response.iter_content(64 * 1024):
        body += chunk
        if len(body) > MAX_BYTES:
            detail = f"{url} sent more than {MAX_BYTES} bytes"
            raise Refused("keyset", claim="jwks", detail=detail)
    if nested_too_deep(body):
        raise Refused("keyset", claim="jwks", detail=f"{url} did not send a JSON key set")
    try:
        keys = json.loads(body)["keys"]
    except (ValueError, TypeError, KeyError, RecursionError):
        raise Refused("keyset", claim="jwks", detail=f"{url} did not send a JSON key set") from None
    if not isinstance(keys, list):
        raise Refused("keyset", claim="jwks", detail=f"{url}: 'keys' is not a list")
    return [k for k in keys if isinstance(k, dict)]


def _failed_key(registration) -> str:
    return f"lti-keyset-failed:{registration.pk}"


def fetch(registration, stored: PlatformKeySet | None) -> PlatformKeySet:
    """Fetch (or revalidate) the registration's key set and store it. A fetch that failed is
    not tried again for REFETCH_SECONDS (in the cache: per process, or shared with Redis), so
    launches while the platform's key set is down or hangs cost one fetch, not one each."""
    failed = cache.get(_failed_key(registration))
    if failed is not None:
        raise Refused(
            "keyset", claim="jwks", detail=f"{failed} (less than {REFETCH_SECONDS} s ago)"
        )
    try:
        return _fetch(registration, stored)
    except Refused as refusal:
        cache.set(_failed_key(registration), refusal.detail, REFETCH_SECONDS)
        raise


def _fetch(registration, stored: PlatformKeySet | None) -> PlatformKeySet:
    url = registration.keyset_url
    headers = {"Accept": "application/json"}
    if stored is not None and stored.url == url and stored.etag:
        headers["If-None-Match"] = stored.etag
    try:
        with session_for(registration).get(url, headers=headers, stream=True) as response:
            now = timezone.now()
            if response.status_code == 304 and stored is not None and stored.url == url:
                keys, etag = stored.keys, stored.etag
            elif response.ok:
                keys, etag = _read(response, url), response.headers.get("ETag", "")[:255]
            else:
                detail = f"{url} answered HTTP {response.status_code}"
                raise Refused("keyset", claim="jwks", detail=detail)
            fresh = freshness(response.headers, now)
    except requests.RequestException as error:
        raise Refused("keyset", claim="jwks", detail=f"{url}: {error}") from error
    values = {
        "url": url,
        "keys": keys,
        "etag": etag,
        "fetched_at": now,
        "fresh_until": now + timedelta(seconds=fresh),
    }
    try:
        with transaction.atomic():
            stored, _ = PlatformKeySet.objects.update_or_create(
                registration=registration, defaults=values
            )
    except IntegrityError:  # another worker stored it at the same moment: ours is as good
        PlatformKeySet.objects.filter(registration=registration).update(**values)
        stored = PlatformKeySet.objects.get(registration=registration)
    return stored


def _matching(keys: list, kid: str, alg: str) -> dict | None:
    for key in keys:
        if key.get("kid") == kid and key.get("alg", alg) == alg and key.get("use", "sig") == "sig":
            return key
    return None


def platform_key(registration, *, kid, alg) -> jwt.PyJWK:
    """The platform's public key for a token header's kid and alg; Refused when there is none."""
    if not isinstance(alg, str) or alg not in ALGORITHMS:
        raise Refused("algorithm", claim="alg", detail=f"alg {str(alg)[:20]!r}")
    if not isinstance(kid, str) or not kid:
        raise Refused("kid-missing", claim="kid")
    now = timezone.now()
    stored = PlatformKeySet.objects.filter(registration=registration).first()
    fetched = False
    if stored is None or stored.url != registration.keyset_url or stored.fresh_until <= now:
        stored, fetched = fetch(registration, stored), True
    key = _matching(stored.keys, kid, alg)
    may_refetch = stored.fetched_at <= now - timedelta(seconds=REFETCH_SECONDS)
    if key is None and not fetched and may_refetch:
        stored = fetch(registration, stored)
        key = _matching(stored.keys, kid, alg)
    if key is None:
        detail = f"kid {kid[:80]!r}, key set {registration.keyset_url}"
        raise Refused("kid-unknown", claim="kid", detail=detail)
    try:
        return jwt.PyJWK(key, algorithm=alg)
    except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError) as error:
        detail = f"key {kid[:80]!r} is unusable: {error}"
        raise Refused("keyset", claim="jwks", detail=detail) from error
