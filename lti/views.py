"""The tool's endpoints: OIDC login initiation, launch, public keys, configuration page."""

from __future__ import annotations

import json
import logging

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import login as sign_in
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch, LtiRegistration
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from lti import launch as launches
from lti.tool import TimeoutSession, ToolConf, ensure_key

log = logging.getLogger(__name__)

SESSION_KEY = "lti"
BACKEND = "django.contrib.auth.backends.ModelBackend"

LOGIN_REFUSED = (
    "The LMS started a sign-in that this site cannot match to a registered platform "
    "(unknown issuer or client id). An administrator registers the LMS first."
)
LAUNCH_REFUSED = (
    "This launch could not be verified, so nobody was signed in and nothing was recorded. "
    "Open the link from the LMS again; if it keeps failing, tell the course's administrator."
)


def refuse(request, message: str, *, status: int = 400, detail: str = ""):
    if detail:
        log.warning("LTI refused: %s", detail)
    return render(request, "lti/refused.html", {"message": message}, status=status)


@csrf_exempt
@require_http_methods(["GET", "POST"])
def login(request):
    """OIDC third-party login initiation: redirect to the platform's authorization endpoint.

    The redirect always names our own launch URL (the platform checks it is registered), never
    the target_link_uri it was sent, so the endpoint cannot be turned into an open redirect.
    """
    params = request.POST if request.method == "POST" else request.GET
    if not params.get("iss") or not params.get("login_hint"):
        return refuse(request, LOGIN_REFUSED, detail="login without iss or login_hint")
    oidc = DjangoOIDCLogin(request, ToolConf(), launch_data_storage=DjangoCacheDataStorage())
    try:
        return oidc.redirect(request.build_absolute_uri(reverse("lti:launch")))
    except (LtiException, OIDCException) as error:
        return refuse(request, LOGIN_REFUSED, detail=str(error))


@csrf_exempt
@require_POST
def launch(request):
    """The platform's signed launch: verified by PyLTI1p3, then placed by lti.launch."""
    message_launch = DjangoMessageLaunch(
        request,
        ToolConf(),
        launch_data_storage=DjangoCacheDataStorage(),
        requests_session=TimeoutSession(),
    )
    try:
        message_launch.validate()
    except LtiException as error:
        return refuse(request, LAUNCH_REFUSED, detail=str(error))
    except (ValueError, KeyError, TypeError) as error:  # a malformed token's claims
        return refuse(request, LAUNCH_REFUSED, detail=repr(error))
    lti_launch = LtiLaunch(message_launch)
    try:
        accepted = launches.accept(lti_launch)
    except launches.LaunchRefused as refusal:
        return refuse(request, str(refusal), status=403, detail=str(refusal))
    sign_in(request, accepted.user, backend=BACKEND)
    request.session[SESSION_KEY] = {
        "registration": lti_launch.registration.pk,
        "context": accepted.context.pk,
        "launch_id": message_launch.get_launch_id(),
    }
    return HttpResponseRedirect(accepted.next_url)


@require_GET
def jwks(request):
    """The tool's public keys: every active key, so a rotated-out key still verifies what it
    signed until it is retired."""
    ensure_key()
    return JsonResponse(Key.objects.as_jwks())


def tool_urls(request) -> dict:
    return {
        "login": request.build_absolute_uri(reverse("lti:login")),
        "launch": request.build_absolute_uri(reverse("lti:launch")),
        "jwks": request.build_absolute_uri(reverse("lti:jwks")),
        "domain": request.get_host(),
    }


def canvas_developer_key(urls: dict, title: str) -> dict:
    """The JSON of a Canvas LTI developer key ("Paste JSON")."""
    placement = {
        "text": title,
        "enabled": True,
        "message_type": "LtiResourceLinkRequest",
        "target_link_uri": urls["launch"],
    }
    return {
        "title": title,
        "description": "Quizzes and chapters of The Hardware Reality, graded into Canvas.",
        "oidc_initiation_url": urls["login"],
        "target_link_uri": urls["launch"],
        "public_jwk_url": urls["jwks"],
        "scopes": [
            "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
            "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
            "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
            "https://purl.imsglobal.org/spec/lti-ags/scope/score",
            "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
        ],
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {
                    "placements": [
                        {
                            **placement,
                            "placement": "assignment_selection",
                            "message_type": "LtiDeepLinkingRequest",
                        },
                        {
                            **placement,
                            "placement": "link_selection",
                            "message_type": "LtiDeepLinkingRequest",
                        },
                    ]
                },
            }
        ],
        "custom_fields": {},
    }


@staff_member_required
@require_GET
def configuration(request):
    """For administrators: what to paste into Canvas and Moodle, and what is registered."""
    urls = tool_urls(request)
    title = "The Hardware Reality"
    return render(
        request,
        "lti/configuration.html",
        {
            "urls": urls,
            "canvas_json": json.dumps(canvas_developer_key(urls, title), indent=2),
            "registrations": LtiRegistration.objects.prefetch_related("deployments").order_by(
                "name"
            ),
            "keys": Key.objects.order_by("-datetime_created"),
        },
    )
