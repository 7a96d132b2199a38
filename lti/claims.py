"""The launch's LTI claims, checked against LTI 1.3 Core, Deep Linking 2.0, AGS 2.0 and NRPS 2.0.

Signature, expiry, issue time, audience and nonce are checked before this (lti.oidc); what is
here is the shape of the message itself: the claims every launch MUST carry, and the URLs of the
services it names (which must be on the platform's own hosts, lti.network). Pure functions over
the decoded body; a failed check raises `Refused` naming the claim.
"""

from __future__ import annotations

import re
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
TOOL_PLATFORM = LTI + "tool_platform"
PNS = LTI + "platformnotificationservice"

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
PLATFORM_FIELDS = {
    "name": 500,
    "url": 200,
    "contact_email": 254,
    "description": 10_000,
    "product_family_code": 500,
    "version": 500,
}
PNS_FIELDS = {"platform_notification_service_url": 200}
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


def _without_nulls(claim: dict | None, keys) -> None:
    """An optional member sent as null is taken as absent (django-lti would store the null in
    a column that takes none)."""
    for key in keys:
        if claim is not None and key in claim and claim[key] is None:
            del claim[key]


def _string_list(claim: dict, key: str, name: str) -> None:
    value = claim.get(key)
    if value is not None and (
        not isinstance(value, list) or not all(isinstance(v, str) for v in value)
    ):
        detail = f"a list of strings expected, got {shown(value)}"
        raise Refused("claim-form", claim=name, detail=detail)


def check_stored(body: dict) -> None:
    """The claims django-lti stores beside ours (the context, the platform instance, the
    notification service): of the form and length its columns take."""
    context = _object(body, CONTEXT, required=False)
    if context is not None:
        _without_nulls(context, CONTEXT_FIELDS)
        _string(context, "id", name="context id")
        _optional_strings(context, CONTEXT_FIELDS, "context ")
        _string_list(context, "type", "context type")
    platform = _object(body, TOOL_PLATFORM, required=False)
    if platform is not None:
        _without_nulls(platform, PLATFORM_FIELDS)
        _string(platform, "guid", name="tool_platform guid")
        _optional_strings(platform, PLATFORM_FIELDS, "tool_platform ")
    pns = _object(body, PNS, required=False)
    if pns is not None:
        _without_nulls(pns, [*PNS_FIELDS, "notice_types_supported"])
        _optional_strings(pns, PNS_FIELDS, "platformnotificationservice ")
        _string_list(
            pns, "notice_types_supported", "platformnotificationservice notice_types_supported"
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
        _without_nulls(ags, ["lineitems", "lineitem"])
        for key in ("lineitems", "lineitem"):
            if key in ags:
                urls.append((key, ags[key]))
        scope = ags.get("scope", [])
        if not isinstance(scope, list) or not all(isinstance(s, str) for s in scope):
            raise Refused("claim-form", claim="endpoint", detail="scope must be a list of strings")
    nrps = _object(body, NRPS, required=False)
    if nrps is not None:  # NRPS 2.0, 3.6.1: the claim MUST give the memberships URL
        if nrps.get("context_memberships_url") is None:
            detail = "the roster claim has no context_memberships_url"
            raise Refused("claim-missing", claim="context_memberships_url", detail=detail)
        urls.append(("context_memberships_url", nrps["context_memberships_url"]))
    for claim, url in urls:
        if not isinstance(url, str):
            raise Refused("service-url", claim=claim, detail="The URL is not a string.")
        problem = web_address_problem(url, {"http", "https"})
        if problem:  # what a parser reads two ways, or what would break a log line
            raise Refused("service-url", claim=claim, detail=f"The URL {problem}.")
        if len(url) > URL_LIMITS[claim]:
            detail = f"The URL is longer than {URL_LIMITS[claim]} characters: {shown(url)}."
            raise Refused("service-url", claim=claim, detail=detail)
        reason = policy.refusal(url, resolve_names=False)
        if reason:
            raise Refused("service-url", claim=claim, detail=reason)


# A host name (letters, digits, hyphens, dots) or a bracketed IPv6 address.
HOST = re.compile(
    r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\]"
)
# What no plain web address holds, and what parsers read differently or a header ends at.
UNSAFE = re.compile(r"[\s\\\x00-\x1f\x7f]")


def web_address_problem(url, schemes) -> str:
    """Why `url` is not a plain absolute web address, or "": a scheme of `schemes`, a host
    name, no user info, a port that is one, and nothing (spaces, controls, backslashes) that a
    browser, urllib3 and urlsplit would read differently or that would end a header. Its
    origin can then go into a Content-Security-Policy as it is."""
    if not isinstance(url, str):
        return "absent" if url is None else f"{shown(url)} is not a string"
    if UNSAFE.search(url):
        return f"{shown(url)} holds spaces, control characters or backslashes"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        return f"{shown(url)} is not a URL"
    if parts.scheme not in schemes or not parts.hostname:
        return f"{shown(url)} is not a {'/'.join(sorted(schemes))} URL"
    if "@" in parts.netloc:
        return f"{shown(url)} carries a user name or password"
    netloc_host = parts.netloc.rsplit(":", 1)[0] if parts.port else parts.netloc
    if not HOST.fullmatch(netloc_host.lower()):
        return f"{shown(url)} has no valid host name"
    return ""


def check_deep_linking(body: dict, policy: HostPolicy) -> dict:
    settings = _object(body, DL_SETTINGS, required=True)
    url = settings.get("deep_link_return_url")
    problem = web_address_problem(url, {"https", "http"} if policy.allow_local else {"https"})
    if problem:
        raise Refused("return-url", claim="deep_link_return_url", detail=problem)
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
    check_stored(body)
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
