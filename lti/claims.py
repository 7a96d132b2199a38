"""The launch's LTI claims, checked against LTI 1.3 Core, Deep Linking 2.0, AGS 2.0 and NRPS 2.0.

Signature, expiry, issue time, audience and nonce are checked before this (lti.oidc); what is
here is the shape of the message itself: the claims every launch MUST carry, and the URLs of the
services it names (which must be on the platform's own hosts, lti.network). Pure functions over
the decoded body; a failed check raises `Refused` naming the claim.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from lti.network import HostPolicy
from lti.refusals import Refused

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
MESSAGE_TYPES = {RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST}


def shown(value, limit: int = 120) -> str:
    """A value from the token, safe to put in a log line or a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(claim: str) -> str:
    return claim.rsplit("/", 1)[-1]


def _string(
    body: dict, claim: str, *, name: str = "", limit: int = 255, ascii_only: bool = False
) -> str:
    name = name or short(claim)
    value = body.get(claim)
    if value is None or value == "":
        raise Refused("claim-missing", claim=name, detail=f"{name} is absent")
    if not isinstance(value, str) or len(value) > limit:
        raise Refused(
            "claim-form",
            claim=name,
            detail=f"a string of at most {limit} characters expected, got {shown(value)}",
        )
    if ascii_only and not value.isascii():
        raise Refused("claim-form", claim=name, detail="ASCII characters only")
    return value


def _object(body: dict, claim: str, *, required: bool) -> dict | None:
    value = body.get(claim)
    if value is None:
        if required:
            raise Refused("claim-missing", claim=short(claim), detail=f"{short(claim)} is absent")
        return None
    if not isinstance(value, dict):
        detail = f"an object expected, got {shown(value)}"
        raise Refused("claim-form", claim=short(claim), detail=detail)
    return value


# Optional strings and how long they may be (the columns django-lti and our app store them in).
USER_FIELDS = {"given_name": 500, "family_name": 500, "name": 500, "email": 254, "picture": 200}
CONTEXT_FIELDS = {"label": 255, "title": 500}
LINK_FIELDS = {"title": 500}
# Service URLs: django-lti keeps lineitems and memberships URLs in 200 characters, our line item
# rows keep 500.
URL_LIMITS = {"lineitems": 200, "lineitem": 500, "context_memberships_url": 200}


def _optional_strings(body: dict, limits: dict, where: str) -> None:
    for key, limit in limits.items():
        value = body.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            raise Refused(
                "claim-form",
                claim=f"{where}{key}",
                detail=f"a string of at most {limit} characters expected, got {shown(value)}",
            )


def check_roles(body: dict) -> list[str]:
    """Roles MUST be an array of role URIs (it may be empty: anonymous or unknown roles)."""
    roles = body.get(ROLES)
    if roles is None:
        raise Refused("claim-missing", claim="roles", detail="roles is absent")
    if not isinstance(roles, list) or not all(isinstance(r, str) and r for r in roles):
        detail = f"a list of strings expected, got {shown(roles)}"
        raise Refused("claim-form", claim="roles", detail=detail)
    return roles


def check_target(body: dict, tool_host: str) -> None:
    """target_link_uri is REQUIRED, and must be on this site (we route by custom parameters,
    never by this claim, but a launch aimed elsewhere was not meant for us)."""
    target = _string(body, TARGET_LINK_URI, limit=2048)
    parts = urlsplit(target)
    host = (parts.hostname or "").lower()
    if parts.scheme not in {"http", "https"} or host != tool_host.lower():
        raise Refused(
            "target", claim="target_link_uri", detail=f"{shown(target)}, this site is {tool_host}"
        )


def check_service_urls(body: dict, policy: HostPolicy) -> None:
    """The AGS and NRPS URLs this launch names must be ones we would call (lti.network);
    refusing the launch tells the administrator now, not when the first score is lost. Names
    are not resolved here (that happens, again, on each call)."""
    urls = []
    ags = _object(body, AGS_ENDPOINT, required=False)
    if ags is not None:
        for key in ("lineitems", "lineitem"):
            if ags.get(key) is not None:
                urls.append((key, ags[key]))
        scope = ags.get("scope", [])
        if not isinstance(scope, list) or not all(isinstance(s, str) for s in scope):
            raise Refused("claim-form", claim="endpoint", detail="scope must be a list of strings")
    nrps = _object(body, NRPS, required=False)
    if nrps is not None and nrps.get("context_memberships_url") is not None:
        urls.append(("context_memberships_url", nrps["context_memberships_url"]))
    for claim, url in urls:
        if not isinstance(url, str):
            raise Refused("service-url", claim=claim, detail="The URL is not a string.")
        if len(url) > URL_LIMITS[claim]:
            detail = f"The URL is longer than {URL_LIMITS[claim]} characters: {shown(url)}."
            raise Refused("service-url", claim=claim, detail=detail)
        reason = policy.refusal(url, resolve_names=False)
        if reason:
            raise Refused("service-url", claim=claim, detail=reason)


def check_deep_linking(body: dict, policy: HostPolicy) -> dict:
    settings = _object(body, DL_SETTINGS, required=True)
    url = settings.get("deep_link_return_url")
    parts = urlsplit(url) if isinstance(url, str) else None
    schemes = {"https", "http"} if policy.allow_local else {"https"}
    if parts is None or parts.scheme not in schemes or not parts.hostname:
        raise Refused(
            "return-url",
            claim="deep_link_return_url",
            detail="absent" if url is None else f"{shown(url)} is not a {'/'.join(schemes)} URL",
        )
    accept_types = settings.get("accept_types")
    if not isinstance(accept_types, list) or "ltiResourceLink" not in accept_types:
        detail = f"accept_types is {shown(accept_types)}"
        raise Refused("placement", claim="accept_types", detail=detail)
    targets = settings.get("accept_presentation_document_targets")
    if not isinstance(targets, list) or not targets:
        raise Refused(
            "claim-missing",
            claim="accept_presentation_document_targets",
            detail=f"got {shown(targets)}",
        )
    return settings


def check_message(body: dict, *, tool_host: str, policy: HostPolicy) -> None:
    """Every MUST of an LtiResourceLinkRequest or LtiDeepLinkingRequest's claims."""
    message_type = body.get(MESSAGE_TYPE)
    if message_type is None:
        raise Refused("claim-missing", claim="message_type", detail="message_type is absent")
    if message_type not in MESSAGE_TYPES:
        raise Refused("message-type", claim="message_type", detail=shown(message_type))
    if body.get(VERSION) != "1.3.0":
        raise Refused("version", claim="version", detail=shown(body.get(VERSION)))
    _string(body, DEPLOYMENT_ID, ascii_only=True)
    _string(body, "sub")
    check_roles(body)
    check_target(body, tool_host)
    _optional_strings(body, USER_FIELDS, "")
    context = _object(body, CONTEXT, required=False)
    if context is not None:
        _string(context, "id", name="context id")
        _optional_strings(context, CONTEXT_FIELDS, "context ")
    custom = _object(body, CUSTOM, required=False)
    if custom is not None and not all(isinstance(k, str) for k in custom):
        raise Refused("claim-form", claim="custom", detail="keys must be strings")
    if message_type == RESOURCE_LINK_REQUEST:
        link = _object(body, RESOURCE_LINK, required=True)
        _string(link, "id", name="resource_link id")
        _optional_strings(link, LINK_FIELDS, "resource_link ")
    else:
        check_deep_linking(body, policy)
    check_service_urls(body, policy)
