"""Deep linking: an instructor, launched from the LMS, picks chapters and quizzes to place there.

What is offered is the offering of the launch's own LMS context (the launch mapped it), and only
that offering's staff may pick.

The request's settings were checked at launch (lti.claims: a return URL, resource links
accepted) and kept in the session, so any worker serves this page. The response (a JWT the tool
signs) is built by PyLTI1p3; a quiz goes with its line item (label, maximum score, resource id),
so the LMS creates the gradebook column that passback then fills. The server holds to the
request: one item when `accept_multiple` is false, and `data` echoed only when it was sent
(DL 2.0, 4.4).
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Sum
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from lti_tool.models import LtiRegistration
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from courseware.models import Chapter
from courseware.roles import STAFF, enter, role_of
from lti.models import ContextOffering
from lti.tool import origin, tool_registration
from quizzes.models import Quiz

DATA_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/data"

SESSION_KEY = "lti"
EXPIRED = (
    "This selection is no longer tied to an LMS request (it expired, or the page was opened "
    "outside the LMS). Start again from the LMS's \u201cadd content\u201d button."
)


def quiz_max_points(quiz: Quiz) -> Decimal:
    """The most an attempt can score: every item outside a pool, and each pool's best draws."""
    items = list(quiz.items.values_list("pool", "points"))
    total = sum((p for pool, p in items if not pool), Decimal(0))
    for pool, draws in (quiz.pools or {}).items():
        best = sorted((p for name, p in items if name == pool), reverse=True)
        total += sum(best[: int(draws)], Decimal(0))
    if not items:
        total = quiz.items.aggregate(t=Sum("points"))["t"] or Decimal(0)
    return total


class ToolDeepLink(DeepLink):
    """PyLTI1p3's response, with `data` only when the request had it (PyLTI1p3 sends null)."""

    def get_message_jwt(self, resources):
        message = super().get_message_jwt(resources)
        if "data" not in self._deep_link_settings:
            message.pop(DATA_CLAIM, None)
        return message


def accepts_multiple(settings: dict) -> bool:
    """accept_multiple as sent (a JSON boolean, or the strings some platforms send); absent
    means no limit was asked for."""
    value = settings.get("accept_multiple", True)
    if isinstance(value, str):
        return value.strip().lower() != "false"
    return bool(value)


def resources_for(request, picks: list[str], offering) -> list[DeepLinkResource]:
    launch_url = request.build_absolute_uri(reverse("lti:launch"))
    resources = []
    for pick in picks:
        kind, _, slug = pick.partition(":")
        if kind == "quiz":
            quiz = Quiz.objects.for_offering(offering).visible().filter(slug=slug).first()
            if quiz is None:
                continue
            line_item = (
                LineItem()
                .set_label(quiz.title)
                .set_score_maximum(float(quiz_max_points(quiz)))
                .set_resource_id(f"quiz:{quiz.slug}")
                .set_tag(f"quiz:{quiz.slug}")
            )
            resource = (
                DeepLinkResource()
                .set_title(quiz.title)
                .set_url(launch_url)
                .set_custom_params({"quiz": quiz.slug})
                .set_lineitem(line_item)
            )
        elif kind == "chapter":
            chapter = Chapter.objects.for_course(offering.course_id).filter(slug=slug).first()
            if chapter is None:
                continue
            resource = (
                DeepLinkResource()
                .set_title(chapter.title)
                .set_url(launch_url)
                .set_custom_params({"chapter": chapter.slug})
            )
        else:
            continue
        resources.append(resource)
    return resources


def _deep_link_of(request) -> tuple[DeepLink, dict] | None:
    """The deep-linking request this session was launched with, or None."""
    launched = request.session.get(SESSION_KEY) or {}
    request_data = launched.get("deep_link")
    if not request_data or not request.user.is_authenticated:
        return None
    registration = LtiRegistration.objects.active().filter(pk=launched.get("registration")).first()
    if registration is None:
        return None
    settings = request_data["settings"]
    link = ToolDeepLink(tool_registration(registration), request_data["deployment_id"], settings)
    return link, settings


@require_http_methods(["GET", "POST"])
def deep_link(request):
    found = _deep_link_of(request)
    if found is None:
        return render(request, "lti/refused.html", {"message": EXPIRED}, status=400)
    link, settings = found
    # The offering of the LMS course this session was launched from (the launch mapped it).
    context_id = (request.session.get(SESSION_KEY) or {}).get("context")
    placed = (
        ContextOffering.objects.filter(context_id=context_id)
        .select_related("offering__course")
        .first()
    )
    offering = placed.offering if placed is not None else None
    role = role_of(request.user, offering)
    if offering is None or role not in STAFF:
        return render(
            request,
            "lti/refused.html",
            {"message": "Only the course's instructors can choose what to link here."},
            status=403,
        )
    enter(request, offering, role)
    multiple = accepts_multiple(settings)
    if request.method == "POST":
        picks = list(dict.fromkeys(request.POST.getlist("pick")))
        resources = resources_for(request, picks, offering)
        if not resources:
            error = "Choose at least one chapter or quiz."
        elif len(resources) > 1 and not multiple:
            error = "The LMS takes one item here: choose one chapter or quiz."
        else:
            jwt = link.get_response_jwt(resources)
            return_url = settings["deep_link_return_url"]
            response = render(
                request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": jwt}
            )
            # The form goes to the platform: its origin joins form-action for this page only.
            response._csp_update = {"form-action": [origin(return_url)]}
            return response
    else:
        error = ""
    return render(
        request,
        "lti/deep_link.html",
        {
            "quizzes": Quiz.objects.for_offering(offering).visible(),
            "chapters": Chapter.objects.for_course(offering.course_id),
            "multiple": multiple,
            "error": error,
        },
    )
