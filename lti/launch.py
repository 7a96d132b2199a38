"""What a validated launch does here: who the user is, their course role, where they land.

The launch has been checked by lti.oidc and lti.claims (state and nonce, signature, times,
issuer, audience, deployment, message claims) before anything here runs. This module refuses a
replayed nonce and a launch it cannot place (no role of ours, a link to a quiz that is gone),
and does all its writes in one transaction, so a refused launch leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiContext, LtiLaunch, LtiUser
from lti_tool.utils import sync_data_from_launch

from courseware.models import Chapter, Course, Enrollment, Role
from lti.models import ContextCourse, GradeSync, QuizLineItem, UsedNonce
from quizzes.models import Quiz

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
# Longer than a login's state (and its nonce) is kept (lti.oidc: a day), past which it is gone.
NONCE_KEPT = timedelta(days=2)


class LaunchRefused(Exception):
    """A launch we will not accept; the message is for the person who launched."""


@dataclass
class Accepted:
    user: object
    course: Course
    role: str
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


def course_role(roles: list[str]) -> str | None:
    """Our role for LTI roles: Instructor and TeachingAssistant teach, ContentDeveloper writes,
    Learner studies (the highest wins); None when none of them is present."""
    names = context_role_names(roles)
    if names & {"Instructor", "TeachingAssistant"}:
        return Role.INSTRUCTOR
    if "ContentDeveloper" in names:
        return Role.AUTHOR
    if "Learner" in names:
        return Role.STUDENT
    return None


def username_for(issuer: str, sub: str) -> str:
    """A stable local username for (issuer, sub); never derived from an e-mail address."""
    digest = hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:24]
    return f"lti-{digest}"


def new_account(issuer: str, sub: str):
    """A fresh account for an LMS identity, with no password (it signs in through the LMS).

    The username is derived from (issuer, sub); if a local account already holds that name it
    is never taken over: the new account gets a suffix instead.
    """
    User = get_user_model()
    base = username_for(issuer, sub)
    username = base
    while User.objects.filter(username=username).exists():
        username = f"{base}-{secrets.token_hex(3)}"
    user = User(username=username)
    user.set_unusable_password()
    user.save()
    return user


def _user_for(lti_launch: LtiLaunch):
    """The account for (issuer, sub): the one linked before (from any registration of that
    issuer), else a new one. An e-mail address in the launch is stored, never matched on."""
    issuer, sub = lti_launch.get_claim("iss"), lti_launch.get_claim("sub")
    lti_user = lti_launch.user
    if lti_user.auth_user_id is None:
        linked = (
            LtiUser.objects.filter(registration__issuer=issuer, sub=sub, auth_user__isnull=False)
            .exclude(pk=lti_user.pk)
            .values_list("auth_user_id", flat=True)
            .first()
        )
        User = get_user_model()
        if linked is not None:
            user = User.objects.get(pk=linked)
        else:
            user = new_account(issuer, sub)
        lti_user.auth_user = user
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


def _target(course: Course, lti_launch: LtiLaunch):
    """(quiz, chapter) the link points to, from its custom parameters (set by deep linking)."""
    quiz_slug = lti_launch.get_custom_claim("quiz")
    chapter_slug = lti_launch.get_custom_claim("chapter")
    quiz = chapter = None
    if quiz_slug:
        quiz = Quiz.objects.for_course(course).filter(slug=quiz_slug, is_published=True).first()
        if quiz is None:
            raise LaunchRefused("This link points to a quiz that is not (or no longer) here.")
    elif chapter_slug:
        chapter = Chapter.objects.for_course(course).filter(slug=chapter_slug).first()
        if chapter is None:
            raise LaunchRefused("This link points to a chapter that is not (or no longer) here.")
    return quiz, chapter


def _record_line_item(context: LtiContext, quiz: Quiz, lti_launch: LtiLaunch) -> QuizLineItem:
    claim = lti_launch.get_claim(AGS_CLAIM) or {}
    line_item, _ = QuizLineItem.objects.get_or_create(context=context, quiz=quiz)
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
    role = course_role(lti_launch.roles_claim)
    if role is None:
        raise LaunchRefused(
            "Your role in this LMS course (neither learner, instructor, teaching assistant nor "
            "content developer) has no place here. Ask the course's instructor."
        )
    if deep_link and role == Role.STUDENT:
        raise LaunchRefused("Only the course's instructors can choose what to link here.")
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
        link, _ = ContextCourse.objects.get_or_create(
            context=context, defaults={"course": Course.objects.current()}
        )
        course = link.course
        quiz, chapter = (None, None) if deep_link else _target(course, lti_launch)
        user = _user_for(lti_launch)
        Enrollment.objects.update_or_create(user=user, course=course, defaults={"role": role})
        if deep_link:
            next_url = reverse("lti:deep_link")
        elif quiz is not None:
            next_url = quiz.get_absolute_url()
            if lti_launch.get_claim(AGS_CLAIM):
                line_item = _record_line_item(context, quiz, lti_launch)
                if role == Role.STUDENT:
                    GradeSync.objects.get_or_create(
                        line_item=line_item, lti_user=lti_launch.user, defaults={"user": user}
                    )
        elif chapter is not None:
            next_url = chapter.get_absolute_url()
        else:
            next_url = reverse("courseware:home")
    return Accepted(user=user, course=course, role=role, context=context, next_url=next_url)
