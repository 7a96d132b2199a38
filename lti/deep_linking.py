"""Deep linking: an instructor, launched from the LMS, picks chapters and quizzes to place there.

What is offered is the offering of the launch's own LMS context (the launch mapped it), and only
that offering's staff may pick.

The response (a JWT the tool signs) is built by PyLTI1p3 from the launch kept in the cache; a
quiz goes with its line item (label, maximum score, resource id), so the LMS creates the
gradebook column that passback then fills.
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Sum
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoMessageLaunch
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException
from pylti1p3.lineitem import LineItem

from courseware.models import Chapter
from courseware.roles import STAFF, role_of
from lti.models import ContextOffering
from lti.tool import ToolConf, origin
from quizzes.models import Quiz

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


@require_http_methods(["GET", "POST"])
def deep_link(request):
    launched = request.session.get(SESSION_KEY) or {}
    message_launch = None
    if launched.get("launch_id") and request.user.is_authenticated:
        try:
            message_launch = DjangoMessageLaunch.from_cache(
                launched["launch_id"],
                request,
                ToolConf(),
                launch_data_storage=DjangoCacheDataStorage(),
            )
        except LtiException:
            message_launch = None
    if message_launch is None or not message_launch.is_deep_link_launch():
        return render(request, "lti/refused.html", {"message": EXPIRED}, status=400)
    link = (
        ContextOffering.objects.filter(context_id=launched.get("context"))
        .select_related("offering__course")
        .first()
    )
    offering = link.offering if link is not None else None
    if offering is None or role_of(request.user, offering) not in STAFF:
        return render(
            request,
            "lti/refused.html",
            {"message": "Only the course's instructors can choose what to link here."},
            status=403,
        )
    settings = message_launch.get_launch_data().get(
        "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings", {}
    )
    if request.method == "POST":
        resources = resources_for(request, request.POST.getlist("pick"), offering)
        if not resources:
            error = "Choose at least one chapter or quiz."
        else:
            jwt = message_launch.get_deep_link().get_response_jwt(resources)
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
            "offering": offering,
            "quizzes": Quiz.objects.for_offering(offering).visible(),
            "chapters": Chapter.objects.for_course(offering.course_id),
            "multiple": settings.get("accept_multiple", True),
            "error": error,
        },
    )
