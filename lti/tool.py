"""The tool's side of LTI, on django-lti and PyLTI1p3: registrations, keys, HTTP to platforms.

django-lti keeps registrations, deployments and the tool's keys; PyLTI1p3 builds the messages
the tool signs and makes the service calls. This module decides where registrations come from
(refusing unknown deployments instead of recording them), which of our keys signs (after a
rotation, a new key is published a while before it signs), and sends every service call through the
platform's checked session (lti.network: its own hosts only, with a timeout).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from urllib.parse import urlsplit

import requests
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from lti_tool.models import Key, LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector

from lti.models import PlatformFraming
from lti.network import session_for

# How long our JWKS may be cached by a platform (its Cache-Control), and how long a new key is
# published before it signs: twice that, so a platform that cached the key set just before a
# rotation has fetched it again before it meets the new key id.
JWKS_MAX_AGE = 300
PUBLISHED_BEFORE_SIGNING = timedelta(seconds=2 * JWKS_MAX_AGE)
# How long an access token from a platform is reused (they are granted for an hour).
TOKEN_SECONDS = 50 * 60
# What a call to a platform raises when the platform fails or answers out of shape: PyLTI1p3's
# and requests' errors, and what reading JSON of another shape or depth than the spec's raises
# (a list for an object, a dict for a URL, nesting past Python's recursion limit).
PLATFORM_ERRORS = (
    LtiException,
    requests.RequestException,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    RecursionError,
)


def signing_key() -> Key:
    """The key that signs now: the newest active key published for PUBLISHED_BEFORE_SIGNING,
    else (every active key is newer) the oldest active one."""
    keys = Key.objects.active().order_by("-datetime_created")
    ready = keys.filter(datetime_created__lte=timezone.now() - PUBLISHED_BEFORE_SIGNING).first()
    return ready or keys.last() or ensure_key()


def tool_registration(registration: LtiRegistration) -> Registration:
    """PyLTI1p3's registration for a django-lti one, signing with `signing_key()`."""
    converted = registration.to_registration()
    if not registration.has_key:
        key = signing_key()
        converted.set_tool_private_key(key.private_key)
        converted.set_tool_public_key(key.public_key)
    return converted


class ToolConf(DjangoToolConfig):
    """django-lti's configuration, except that an unknown or inactive deployment is refused,
    and our registrations sign with `signing_key()`.

    django-lti records an unknown deployment id (inactive) on first sight; the issue asks that a
    failed launch creates nothing, so here it is simply not found.
    """

    def find_registration_by_params(self, iss, client_id, *args, **kwargs):
        if super().find_registration_by_params(iss, client_id, *args, **kwargs) is None:
            return None
        return tool_registration(self.registration)

    def find_deployment(self, iss, deployment_id):
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        lookups = {
            "registration__issuer": iss,
            "registration__is_active": True,
            "deployment_id": deployment_id,
            "is_active": True,
        }
        if client_id is not None:
            lookups["registration__client_id"] = client_id
        deployment = LtiDeployment.objects.filter(**lookups).first()
        if deployment is None:
            return None
        self.deployment = deployment
        from pylti1p3.deployment import Deployment

        return Deployment().set_deployment_id(deployment.deployment_id)


class ToolServiceConnector(ServiceConnector):
    """PyLTI1p3's connector, with two repairs: a next-page URL is taken from the Link header
    as sent (PyLTI1p3 lowercases the whole header first, so a URL with capitals breaks), and an
    access token is reused, from the shared cache, for the hour the platform grants it rather
    than requested for each score (a class submitting together is one token request)."""

    def __init__(self, registration: LtiRegistration):
        self.session = session_for(registration)
        super().__init__(tool_registration(registration), requests_session=self.session)
        where = [registration.pk, registration.issuer, registration.client_id]
        where += [registration.token_url, registration.audience]
        self._cache_prefix = "lti-token:" + hashlib.sha256(repr(where).encode()).hexdigest()

    def _token_key(self, scopes) -> str:
        return self._cache_prefix + hashlib.sha256(" ".join(sorted(scopes)).encode()).hexdigest()

    def forget_token(self, scopes) -> None:
        """Drop a kept token the platform no longer takes; the next call asks for another."""
        cache.delete(self._token_key(scopes))
        self._access_tokens.clear()

    def get_access_token(self, scopes):
        token = cache.get(self._token_key(scopes))
        if token is None:
            token = super().get_access_token(scopes)
            # Platforms grant an hour (IMS Security Framework 4.1); keep it a little less.
            cache.set(self._token_key(scopes), token, TOKEN_SECONDS)
        return token

    def make_service_request(self, scopes, url, *args, **kwargs):
        try:
            response = super().make_service_request(scopes, url, *args, **kwargs)
        except LtiServiceException as error:
            if error.response.status_code != 401 or cache.get(self._token_key(scopes)) is None:
                raise
            # The platform no longer takes the token we kept (restarted, revoked): ask again.
            self.forget_token(scopes)
            response = super().make_service_request(scopes, url, *args, **kwargs)
        headers = {name.lower(): value for name, value in response["headers"].items()}
        response["next_page_url"] = next_page(headers.get("link", ""))
        return response


def next_page(link_header: str) -> str | None:
    """The rel="next" URL of a Link header, exactly as sent (case and query kept)."""
    for link in requests.utils.parse_header_links(link_header.replace("\n", " ")):
        if "next" in link.get("rel", "").lower().split():
            return link.get("url") or None
    return None


def connector(registration: LtiRegistration) -> ServiceConnector:
    """A PyLTI1p3 service connector for the registration, its HTTP calls checked (lti.network)."""
    return ToolServiceConnector(registration)


def ensure_key() -> Key:
    """The signing key: generated once (the first time it is needed), then kept.

    The private key lives in the database, never in the repository or a settings file: it is
    generated on the server, backed up with the data it signs for, and shown nowhere.
    """
    with transaction.atomic():
        key = Key.objects.active().order_by("-datetime_created").first()
        return key or Key.objects.generate()


def origin(url: str) -> str:
    """scheme://host[:port] of an http(s) URL, lowercased, without any user info."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return ""
    host = parts.netloc.rpartition("@")[2].lower()
    return f"{parts.scheme}://{host}"


def register_platform(
    *,
    name: str,
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    auth_login_url: str,
    token_url: str,
    jwks_url: str,
    frame_origins: list[str] = (),
    token_audience: str = "",
    service_hosts: list[str] = (),
    allow_local_network: bool = False,
) -> tuple[LtiRegistration, bool]:
    """Create or update a registration and its deployments (active); (registration, created).

    `token_audience` is the `aud` of our access-token requests when the platform wants another
    than its token URL (Brightspace); `service_hosts` are further hosts its grade and roster
    services may be on; `allow_local_network` is for a demo LMS on this machine only.
    """
    ensure_key()
    with transaction.atomic():
        registration, created = LtiRegistration.objects.update_or_create(
            issuer=issuer,
            client_id=client_id,
            defaults={
                "name": name or issuer,
                "auth_url": auth_login_url,
                "token_url": token_url,
                "keyset_url": jwks_url,
                "audience": token_audience,
                "is_active": True,
            },
        )
        for deployment_id in deployment_ids:
            LtiDeployment.objects.update_or_create(
                registration=registration,
                deployment_id=deployment_id,
                defaults={"is_active": True},
            )
        origins = list(frame_origins) or [origin(issuer), origin(auth_login_url)]
        unique = list(dict.fromkeys(o.rstrip("/") for o in origins if o))
        PlatformFraming.objects.update_or_create(
            registration=registration,
            defaults={
                "frame_origins": "\n".join(unique),
                "service_hosts": "\n".join(dict.fromkeys(h.strip() for h in service_hosts)),
                "allow_local_network": allow_local_network,
            },
        )
    return registration, created


def frame_origins(registration_id: int) -> list[str]:
    """The origins that may frame pages of a session launched from this registration."""
    framing = (
        PlatformFraming.objects.filter(
            registration_id=registration_id, registration__is_active=True
        )
        .only("frame_origins")
        .first()
    )
    return framing.origins if framing else []
