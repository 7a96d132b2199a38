"""The tool's endpoints: OIDC login initiation, launch, public keys, configuration page."""

from __future__ import annotations

import json
import logging

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import login as sign_in
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch, LtiRegistration

from lti import launch as launches
from lti.claims import DEPLOYMENT_ID, DL_SETTINGS
from lti.middleware import framed_by_platforms
from lti.oidc import ToolMessageLaunch, begin_login, clear_state_cookie, set_state_cookie
from lti.refusals import Refused, refusal_page
from lti.tool import JWKS_MAX_AGE, ToolConf, ensure_key, signing_key

log = logging.getLogger(__name__)

SESSION_KEY = "lti"
BACKEND = "django.contrib.auth.backends.ModelBackend"


@csrf_exempt
@require_http_methods(["GET", "POST"])
def login(request):
    """OIDC third-party login initiation: record the state and nonce (lti.oidc), redirect to
    the platform's authorization endpoint.

    The redirect always names our own launch URL (the platform checks it is registered), never
    the target_link_uri it was sent, so the endpoint cannot be turned into an open redirect.
    """
    params = request.POST if request.method == "POST" else request.GET
    try:
        url, state = begin_login(
            request, params, launch_url=request.build_absolute_uri(reverse("lti:launch"))
        )
    except Refused as refusal:
        return refusal_page(request, refusal)
    response = HttpResponseRedirect(url)
    set_state_cookie(request, response, state)
    return response


@csrf_exempt
@require_POST
def launch(request):
    """The platform's signed launch: verified by lti.oidc and lti.claims, placed by lti.launch."""
    message_launch = ToolMessageLaunch(request, ToolConf())
    try:
        message_launch.validate()
    except Refused as refusal:
        return refusal_page(request, refusal)
    lti_launch = LtiLaunch(message_launch)
    try:
        accepted = launches.accept(lti_launch)
    except launches.LaunchRefused as refusal:
        log.warning("LTI refused [placement] roles/custom: %s", refusal)
        page = render(request, "lti/refused.html", {"message": str(refusal)}, status=403)
        return framed_by_platforms(page)
    sign_in(request, accepted.user, backend=BACKEND)
    launched = {
        "registration": lti_launch.registration.pk,
        "context": accepted.context.pk,
    }
    body = message_launch.get_launch_data()
    if lti_launch.is_deep_link_launch:
        # What the deep-linking page needs, in the session (the database), so any worker can
        # serve it: the request's settings as sent, and the deployment to answer for.
        launched["deep_link"] = {
            "settings": body[DL_SETTINGS],
            "deployment_id": body[DEPLOYMENT_ID],
        }
    request.session[SESSION_KEY] = launched
    response = HttpResponseRedirect(accepted.next_url)
    clear_state_cookie(request, response, message_launch.login_state.state)
    return response


@require_GET
def jwks(request):
    """The tool's public keys: every active key, so a rotated-out key still verifies what it
    signed until it is retired, and a new one is known before it signs (lti.tool)."""
    ensure_key()
    response = JsonResponse(Key.objects.as_jwks())
    patch_cache_control(response, public=True, max_age=JWKS_MAX_AGE)
    return response


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
            "signing": signing_key(),
        },
    )
