"""The tool's side of LTI, on django-lti and PyLTI1p3: registrations, keys, HTTP to platforms.

Every signature, token and claim check is the libraries' work; this module only decides where
registrations come from (refusing unknown deployments instead of recording them) and gives the
service calls a timeout, so a platform that does not answer cannot hold a worker.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import requests
from django.db import transaction
from lti_tool.models import Key, LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.service_connector import ServiceConnector

from lti.models import PlatformFraming

# Seconds for any call to a platform (token, scores, line items, roster, key set).
PLATFORM_TIMEOUT = 10


class TimeoutSession(requests.Session):
    """requests without a timeout wait forever; PyLTI1p3 passes none, so we add ours."""

    def request(self, method, url, **kwargs):
        kwargs.setdefault("timeout", PLATFORM_TIMEOUT)
        return super().request(method, url, **kwargs)


class ToolConf(DjangoToolConfig):
    """django-lti's configuration, except that an unknown or inactive deployment is refused.

    django-lti records an unknown deployment id (inactive) on first sight; the issue asks that a
    failed launch creates nothing, so here it is simply not found.
    """

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


def connector(registration: LtiRegistration) -> ServiceConnector:
    """A PyLTI1p3 service connector for the registration, its HTTP calls bounded in time."""
    return ServiceConnector(registration.to_registration(), requests_session=TimeoutSession())


def ensure_key() -> Key:
    """The signing key: generated once (the first time it is needed), then kept.

    The private key lives in the database, never in the repository or a settings file: it is
    generated on the server, backed up with the data it signs for, and shown nowhere.
    """
    with transaction.atomic():
        key = Key.objects.active().order_by("-datetime_created").first()
        return key or Key.objects.generate()


def origin(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


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
) -> tuple[LtiRegistration, bool]:
    """Create or update a registration and its deployments (active); (registration, created)."""
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
            registration=registration, defaults={"frame_origins": "\n".join(unique)}
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
