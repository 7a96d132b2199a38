"""Roster sync (LTI NRPS): the members of the LMS courses linked to an offering become its
enrolments, so the gradebook lists students who never launched (their quizzes show as missing
work). Accounts are per registration, as for launches; an enrolment made on this site is never
changed, one an LMS made follows the LMS's role."""

from __future__ import annotations

from dataclasses import dataclass

import requests
from django.db import transaction
from lti_tool.models import LtiContext, LtiUser
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from courseware.models import Role
from lti.launch import enrol, new_account, offering_role
from lti.models import GradeSync, QuizLineItem
from lti.tool import connector


class RosterError(Exception):
    pass


@dataclass
class RosterResult:
    members: int = 0
    added: int = 0
    skipped: int = 0


def contexts_of(offering):
    """The LMS contexts linked to the offering."""
    return LtiContext.objects.filter(offering_link__offering=offering).select_related(
        "deployment__registration"
    )


def sync_context(context: LtiContext, offering) -> RosterResult:
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
            role = offering_role(member.get("roles", []))
            sub = member.get("user_id")
            if role is None or not sub or member.get("status", "Active") != "Active":
                result.skipped += 1
                continue
            lti_user, _ = LtiUser.objects.get_or_create(registration=registration, sub=sub)
            if lti_user.auth_user_id is None:
                # This registration's own account for the member: never another registration's.
                user = new_account(registration, sub)
                user.first_name = (member.get("given_name") or member.get("name") or "")[:150]
                user.last_name = (member.get("family_name") or "")[:150]
                user.email = member.get("email") or ""
                user.save(update_fields=["first_name", "last_name", "email"])
                lti_user.auth_user = user
                lti_user.save(update_fields=["auth_user"])
            before = offering.enrollments.filter(user_id=lti_user.auth_user_id).exists()
            enrol(user=lti_user.auth_user, offering=offering, role=role)
            result.added += not before
            if role == Role.STUDENT:
                for line_item in line_items:
                    GradeSync.objects.get_or_create(
                        line_item=line_item,
                        lti_user=lti_user,
                        defaults={"user_id": lti_user.auth_user_id},
                    )
    return result


def sync_offering(offering) -> RosterResult:
    total = RosterResult()
    contexts = list(contexts_of(offering))
    if not contexts:
        raise RosterError("No LMS course is linked yet: launch from the LMS once first.")
    for context in contexts:
        result = sync_context(context, offering)
        total.members += result.members
        total.added += result.added
        total.skipped += result.skipped
    return total
