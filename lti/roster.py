"""Roster sync (LTI NRPS): the LMS course's members become enrolments here, so the gradebook
lists students who never launched (their quizzes show as missing work)."""

from __future__ import annotations

from dataclasses import dataclass

import requests
from django.db import transaction
from lti_tool.models import LtiContext, LtiUser
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from courseware.models import Enrollment, Role
from lti.launch import course_role, new_account
from lti.models import GradeSync, QuizLineItem
from lti.tool import connector


class RosterError(Exception):
    pass


@dataclass
class RosterResult:
    members: int = 0
    added: int = 0
    skipped: int = 0


def contexts_of(course):
    return LtiContext.objects.filter(course_link__course=course).select_related(
        "deployment__registration"
    )


def sync_context(context: LtiContext, course) -> RosterResult:
    if not context.memberships_url:
        raise RosterError(f"The LMS gave no roster service for {context}.")
    registration = context.deployment.registration
    service = NamesRolesProvisioningService(
        connector(registration), {"context_memberships_url": context.memberships_url}
    )
    try:
        members = service.get_members()
    except (LtiException, requests.RequestException, ValueError) as error:
        raise RosterError(f"The LMS did not send its roster ({error}).") from error
    result = RosterResult()
    line_items = list(QuizLineItem.objects.filter(context=context))
    with transaction.atomic():
        for member in members:
            result.members += 1
            role = course_role(member.get("roles", []))
            sub = member.get("user_id")
            if role is None or not sub or member.get("status", "Active") != "Active":
                result.skipped += 1
                continue
            lti_user, _ = LtiUser.objects.get_or_create(registration=registration, sub=sub)
            if lti_user.auth_user_id is None:
                linked = (
                    LtiUser.objects.filter(
                        registration__issuer=registration.issuer, sub=sub, auth_user__isnull=False
                    )
                    .values_list("auth_user_id", flat=True)
                    .first()
                )
                if linked is None:
                    user = new_account(registration.issuer, sub)
                    user.first_name = (member.get("given_name") or member.get("name") or "")[:150]
                    user.last_name = (member.get("family_name") or "")[:150]
                    user.email = member.get("email") or ""
                    user.save(update_fields=["first_name", "last_name", "email"])
                    linked = user.pk
                lti_user.auth_user_id = linked
                lti_user.save(update_fields=["auth_user"])
            _, created = Enrollment.objects.get_or_create(
                user_id=lti_user.auth_user_id, course=course, defaults={"role": role}
            )
            result.added += created
            if role == Role.STUDENT:
                for line_item in line_items:
                    GradeSync.objects.get_or_create(
                        line_item=line_item,
                        lti_user=lti_user,
                        defaults={"user_id": lti_user.auth_user_id},
                    )
    return result


def sync_course(course) -> RosterResult:
    total = RosterResult()
    contexts = list(contexts_of(course))
    if not contexts:
        raise RosterError("No LMS course is linked yet: launch from the LMS once first.")
    for context in contexts:
        result = sync_context(context, course)
        total.members += result.members
        total.added += result.added
        total.skipped += result.skipped
    return total
