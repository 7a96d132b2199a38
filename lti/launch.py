"""What a validated launch does here: who the user is, their role in the offering of the
launch's own LMS context, where they land.

The launch has been checked by lti.oidc and lti.claims (state and nonce, signature, times,
issuer, audience, deployment, message claims) before anything here runs. This module refuses a
replayed nonce and a launch it cannot place (no role of ours, a student in an LMS course no
instructor has opened yet, a link to a quiz that is gone), and does all its writes in one
transaction, so a refused launch leaves nothing behind.

- **Offering.** An LMS context (one context id of one deployment of one registration) maps to
  one offering (`ContextOffering`). An instructor's first launch from an unknown context creates
  its offering, a copy of the registration's template offering (`PlatformTemplate`) or of the
  site's default, titled as the LMS course.
- **Identity** is (registration, sub): django-lti's LtiUser is per registration, and its
  account is never shared with another registration's, even one with the same issuer.
- **Role.** The launch's role applies to that offering only. An enrolment the launch finds made
  by an LMS (a launch or a roster of that offering) follows the LMS's role; an enrolment made on
  this site is never changed, so no launch raises a role given another way. ContentDeveloper
  makes a site-wide author only where `settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR` says so.
- **Line items** are per placement (resource link), so a quiz placed twice in one LMS course
  fills two gradebook columns.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiContext, LtiLaunch, LtiRegistration
from lti_tool.utils import sync_data_from_launch

from courseware.models import (
    Chapter,
    Enrollment,
    EnrollmentSource,
    Offering,
    Role,
    SiteRole,
    SiteRoleKind,
)
from courseware.offerings import free_slug
from courseware.roles import STAFF, site_course
from lti.models import ContextOffering, GradeSync, PlatformTemplate, QuizLineItem, UsedNonce
from quizzes.models import Quiz
from quizzes.services.offerings import copy_offering

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
# Longer than a login's state (and its nonce) is kept (lti.oidc: a day), past which it is gone.
NONCE_KEPT = timedelta(days=2)


NO_ROLE = (
    "Your role in this LMS course (neither learner, instructor nor teaching assistant) has no "
    "place here. Ask the course's instructor."
)
INSTRUCTOR_FIRST = (
    "This LMS course is not set up on the site yet. Its instructor opens the tool from the LMS "
    "once, which creates the course here; then your links work. Nothing was recorded."
)
STAFF_ONLY_LINKING = "Only the course's instructors can choose what to link here."


class LaunchRefused(Exception):
    """A launch we will not accept; the message is for the person who launched."""


@dataclass
class Accepted:
    user: object
    offering: Offering | None
    role: str | None
    context: LtiContext
    next_url: str


def context_role_names(roles: list[str]) -> set[str]:
    """Context (membership) role names, sub-roles included: Instructor#TeachingAssistant ->
    TeachingAssistant. Institution and system roles give no course role."""
    names = set()
    for role in roles or []:
        role = normalize_role(role)
        if role.startswith(MEMBERSHIP + "#"):
            names.add(role.split("#", 1)[1])
        elif role.startswith(MEMBERSHIP + "/"):
            principal, _, sub = role[len(MEMBERSHIP) + 1 :].partition("#")
            names.add(sub or principal)
    return names


def offering_role(roles: list[str]) -> str | None:
    """Our role in an offering for LTI roles: a teaching assistant (the Instructor sub-role, which
    implies its principal) assists, Instructor teaches, Learner studies; None when none of them
    is present. ContentDeveloper is no role in an offering (`makes_author`)."""
    names = context_role_names(roles)
    if "TeachingAssistant" in names:
        return Role.TEACHING_ASSISTANT
    if "Instructor" in names:
        return Role.INSTRUCTOR
    if "Learner" in names:
        return Role.STUDENT
    return None


def makes_author(roles: list[str]) -> bool:
    """Whether these LTI roles make a site-wide author here: ContentDeveloper, and only where
    the site has said so (`settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR`)."""
    return settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR and "ContentDeveloper" in context_role_names(
        roles
    )


def username_for(registration: LtiRegistration, sub: str) -> str:
    """A stable local username for (issuer, client id, sub); never derived from an e-mail
    address, and different for two registrations that share an issuer."""
    key = f"{registration.issuer}\n{registration.client_id}\n{sub}"
    return f"lti-{hashlib.sha256(key.encode()).hexdigest()[:24]}"


def new_account(registration: LtiRegistration, sub: str):
    """A fresh account for an LMS identity, with no password (it signs in through the LMS).

    The username is derived from (issuer, client id, sub); if a local account already holds
    that name it is never taken over: the new account gets a suffix instead.
    """
    User = get_user_model()
    base = username_for(registration, sub)
    username = base
    while User.objects.filter(username=username).exists():
        username = f"{base}-{secrets.token_hex(3)}"
    user = User(username=username)
    user.set_unusable_password()
    user.save()
    return user


def _user_for(lti_launch: LtiLaunch):
    """The account of (registration, sub): the one linked before through this registration,
    else a new one. Another registration's account is never used, whatever its issuer; an
    e-mail address in the launch is stored, never matched on."""
    lti_user = lti_launch.user
    if lti_user.auth_user_id is None:
        lti_user.auth_user = new_account(lti_launch.registration, lti_user.sub)
        lti_user.save(update_fields=["auth_user", "datetime_modified"])
    user = lti_user.auth_user
    given = lti_launch.get_claim("given_name") or lti_launch.get_claim("name") or ""
    names = {
        "first_name": given[:150],
        "last_name": (lti_launch.get_claim("family_name") or "")[:150],
        "email": lti_launch.get_claim("email") or "",
    }
    changed = [field for field, value in names.items() if value and getattr(user, field) != value]
    for field in changed:
        setattr(user, field, names[field])
    if changed:
        user.save(update_fields=changed)
    return user


def enrol(*, user, offering: Offering, role: str) -> Enrollment:
    """The user's enrolment in the offering after an LMS said `role`: a new one is the LMS's;
    an LMS-made one follows the LMS; one made on this site is left exactly as it is."""
    enrollment, created = Enrollment.objects.get_or_create(
        user=user, offering=offering, defaults={"role": role, "source": EnrollmentSource.LMS}
    )
    if not created and enrollment.source == EnrollmentSource.LMS and enrollment.role != role:
        enrollment.role = role
        enrollment.save(update_fields=["role"])
    return enrollment


def _template_offering(registration: LtiRegistration) -> Offering | None:
    chosen = (
        PlatformTemplate.objects.filter(registration=registration)
        .select_related("offering__course")
        .first()
    )
    if chosen is not None and chosen.offering is not None:
        return chosen.offering
    return Offering.objects.default()


def offering_for_new_context(context: LtiContext, registration: LtiRegistration, user) -> Offering:
    """The offering an instructor's first launch from `context` creates: a copy of the
    registration's template offering (or the site's default; an empty offering of the site's
    course without either), titled as the LMS course."""
    title = (context.title or context.label or f"LMS course {context.id_on_platform}")[:200]
    slug = free_slug(context.label or context.title, fallback="lms-course")
    template = _template_offering(registration)
    if template is None:
        return Offering.objects.create(
            course=site_course(), slug=slug, title=title, created_by=user
        )
    return copy_offering(source=template, slug=slug, title=title, by=user)


def _linked_offering(context: LtiContext, lti_launch: LtiLaunch, user, role) -> Offering | None:
    """The context's offering; an instructor's launch creates it, anyone else's is refused
    (a launch with no role here, an author's, gets None)."""
    link = ContextOffering.objects.filter(context=context).select_related("offering__course")
    found = link.first()
    if found is not None:
        return found.offering
    if role is None:
        return None
    if role != Role.INSTRUCTOR:
        raise LaunchRefused(INSTRUCTOR_FIRST)
    try:
        with transaction.atomic():
            offering = offering_for_new_context(context, lti_launch.registration, user)
            ContextOffering.objects.create(context=context, offering=offering)
            return offering
    except IntegrityError:  # another instructor's first launch linked it a moment ago
        return (
            ContextOffering.objects.select_related("offering__course").get(context=context).offering
        )


def _target(offering: Offering, lti_launch: LtiLaunch):
    """(quiz, chapter) the link points to, from its custom parameters (set by deep linking)."""
    quiz_slug = lti_launch.get_custom_claim("quiz")
    chapter_slug = lti_launch.get_custom_claim("chapter")
    quiz = chapter = None
    if quiz_slug:
        quiz = Quiz.objects.for_offering(offering).filter(slug=quiz_slug, is_published=True).first()
        if quiz is None:
            raise LaunchRefused("This link points to a quiz that is not (or no longer) here.")
        quiz.offering = offering
    elif chapter_slug:
        chapter = Chapter.objects.for_course(offering.course_id).filter(slug=chapter_slug).first()
        if chapter is None:
            raise LaunchRefused("This link points to a chapter that is not (or no longer) here.")
    return quiz, chapter


def record_line_item(context: LtiContext, quiz: Quiz, lti_launch: LtiLaunch) -> QuizLineItem:
    """The line item of this placement of the quiz (its resource link): each placement has its
    own, so two placements of one quiz fill two columns. A row of the quiz without a placement
    (recorded before placements were told apart, or found by tag) is adopted by the first."""
    claim = lti_launch.get_claim(AGS_CLAIM) or {}
    link = lti_launch.resource_link
    line_item = QuizLineItem.objects.filter(resource_link=link, quiz=quiz).first()
    if line_item is None:
        unplaced = QuizLineItem.objects.filter(
            context=context, quiz=quiz, resource_link__isnull=True
        ).first()
        if unplaced is not None and (
            not claim.get("lineitem") or unplaced.url in ("", claim.get("lineitem"))
        ):
            unplaced.resource_link = link
            unplaced.save(update_fields=["resource_link"])
            line_item = unplaced
        else:
            line_item = QuizLineItem.objects.create(context=context, resource_link=link, quiz=quiz)
    fields = {
        "url": claim.get("lineitem") or line_item.url,
        "lineitems_url": claim.get("lineitems") or line_item.lineitems_url,
        "scopes": claim.get("scope") or line_item.scopes,
    }
    changed = [f for f, v in fields.items() if getattr(line_item, f) != v]
    for f in changed:
        setattr(line_item, f, fields[f])
    if changed:
        line_item.save(update_fields=changed)
    return line_item


def accept(lti_launch: LtiLaunch) -> Accepted:
    """Sign-in, enrolment and landing page for a validated launch; LaunchRefused otherwise."""
    issuer = lti_launch.get_claim("iss")
    nonce = lti_launch.get_claim("nonce")
    deep_link = lti_launch.is_deep_link_launch
    role = offering_role(lti_launch.roles_claim)
    author = makes_author(lti_launch.roles_claim)
    if role is None and not author:
        raise LaunchRefused(NO_ROLE)
    if deep_link and role not in STAFF:
        raise LaunchRefused(STAFF_ONLY_LINKING)
    # A nonce is only accepted while its login state is kept (a day at most), so older used
    # ones can go: the table stays small.
    UsedNonce.objects.filter(used_at__lt=timezone.now() - NONCE_KEPT).delete()
    with transaction.atomic():
        try:
            with transaction.atomic():
                UsedNonce.objects.create(issuer=issuer, nonce=nonce)
        except IntegrityError:
            raise LaunchRefused(
                "This launch was already used. Go back to the LMS and open the link again."
            ) from None
        sync_data_from_launch(lti_launch)
        context = lti_launch.context
        user = _user_for(lti_launch)
        if author:
            SiteRole.objects.get_or_create(user=user, role=SiteRoleKind.AUTHOR)
        offering = _linked_offering(context, lti_launch, user, role)
        held = enrol(user=user, offering=offering, role=role).role if offering and role else None
        if deep_link and held not in STAFF:
            raise LaunchRefused(STAFF_ONLY_LINKING)
        next_url = _landing(lti_launch, context, offering, held, deep_link)
    return Accepted(user=user, offering=offering, role=held, context=context, next_url=next_url)


def _landing(lti_launch, context, offering, role, deep_link: bool) -> str:
    if deep_link:
        return reverse("lti:deep_link")
    if offering is None or role is None:  # an author with no role in this LMS course
        return reverse("studio:template_list")
    quiz, chapter = _target(offering, lti_launch)
    if quiz is not None:
        if lti_launch.get_claim(AGS_CLAIM):
            line_item = record_line_item(context, quiz, lti_launch)
            if role == Role.STUDENT:
                GradeSync.objects.get_or_create(
                    line_item=line_item,
                    lti_user=lti_launch.user,
                    defaults={"user": lti_launch.user.auth_user},
                )
        return quiz.get_absolute_url()
    if chapter is not None:
        return chapter.get_absolute_url()
    return offering.get_absolute_url()
