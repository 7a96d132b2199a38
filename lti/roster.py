"""Roster sync (LTI NRPS 2.0): the members of the LMS courses linked to an offering become its
enrolments, so the gradebook lists students who never launched (their quizzes show as missing
work). Accounts are per registration, as for launches; an enrolment made on this site is never
changed, one an LMS made follows the LMS's role.

Pages are read here rather than by PyLTI1p3 (which lowercases the next-page URL it takes from
the Link header): each next URL is used exactly as the platform sent it, on the platform's own
hosts only (lti.network). A roster is bounded (pages, members, bytes, seconds), so a platform
that pages forever or sends a huge body cannot hold the worker; and each LMS course is synced on
its own, so one that fails never stops the others.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import requests
from django.db import transaction
from lti_tool.models import LtiContext, LtiUser

from courseware.models import Role
from lti.launch import enrol, new_account, offering_role
from lti.models import GradeSync, QuizLineItem
from lti.network import nested_too_deep
from lti.tool import PLATFORM_ERRORS, ToolServiceConnector, next_page

MEMBERSHIP_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
# Bounds on one LMS course's roster: more pages, members or bytes than a real course has, and
# seconds an instructor can wait for the page to answer.
MAX_PAGES = 100
MAX_MEMBERS = 20_000
MAX_PAGE_BYTES = 8 * 1024 * 1024
MAX_SECONDS = 60


class RosterError(Exception):
    pass


class _Unauthorized(RosterError):
    pass


@dataclass
class RosterResult:
    members: int = 0
    added: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def contexts_of(offering):
    """The LMS contexts linked to the offering."""
    return LtiContext.objects.filter(offering_link__offering=offering).select_related(
        "deployment__registration"
    )


def _page(session, token: str, url: str, deadline: float) -> tuple[list, str | None]:
    headers = {"Authorization": f"Bearer {token}", "Accept": MEMBERSHIP_TYPE}
    with session.get(url, headers=headers, stream=True) as response:
        if response.status_code == 401:
            raise _Unauthorized("The LMS did not take our access token (HTTP 401).")
        if not response.ok:
            raise RosterError(f"The LMS did not send its roster (HTTP {response.status_code}).")
        body = bytearray()
        late = RosterError(f"The LMS took longer than {MAX_SECONDS} s to send its roster.")
        try:
            for chunk in response.iter_content(64 * 1024):
                body += chunk
                if len(body) > MAX_PAGE_BYTES:
                    raise RosterError(f"A roster page was larger than {MAX_PAGE_BYTES} bytes.")
                if time.monotonic() > deadline:
                    raise late
        except requests.RequestException:
            if time.monotonic() > deadline:  # the session cut it off (lti.network)
                raise late from None
            raise
        if nested_too_deep(body):
            raise RosterError("The LMS's roster page is not a membership container.")
        try:
            members = json.loads(body)["members"]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise RosterError("The LMS's roster page is not a membership container.") from None
        if not isinstance(members, list):
            raise RosterError("The LMS's roster page has no list of members.")
        return members, next_page(response.headers.get("Link", ""))


def fetch_members(context: LtiContext) -> list[dict]:
    """Every member of the context's roster, page after page, within the bounds above."""
    service = ToolServiceConnector(context.deployment.registration)
    session = service.session
    deadline = time.monotonic() + MAX_SECONDS
    session.deadline_at = deadline  # no call may outlast the roster's own time
    try:
        token = service.get_access_token([MEMBERSHIP_SCOPE])
        members, url, pages, seen = [], context.memberships_url, 0, set()
        while url:
            if pages == MAX_PAGES or url in seen:
                raise RosterError(f"The LMS's roster went on past {pages} pages; stopped there.")
            seen.add(url)
            try:
                page, next_url = _page(session, token, url, deadline)
            except _Unauthorized:
                if pages:  # only a token kept from before is worth asking again for
                    raise
                service.forget_token([MEMBERSHIP_SCOPE])
                token = service.get_access_token([MEMBERSHIP_SCOPE])
                page, next_url = _page(session, token, url, deadline)
            url = next_url
            pages += 1
            members += [m for m in page if isinstance(m, dict)]
            if len(members) > MAX_MEMBERS:
                raise RosterError(f"The LMS's roster has more than {MAX_MEMBERS} members.")
    except PLATFORM_ERRORS as error:
        raise RosterError(f"The LMS did not send its roster ({error}).") from error
    return members


def sync_context(context: LtiContext, offering) -> RosterResult:
    if not context.memberships_url:
        raise RosterError(f"The LMS gave no roster service for {context}.")
    registration = context.deployment.registration
    members = fetch_members(context)
    result = RosterResult()
    line_items = list(QuizLineItem.objects.filter(context=context))
    with transaction.atomic():
        for member in members:
            result.members += 1
            roles = member.get("roles")
            role = (
                offering_role([r for r in roles if isinstance(r, str)])
                if isinstance(roles, list)
                else None
            )
            sub = member.get("user_id")
            if role is None or not isinstance(sub, str) or not sub or len(sub) > 255:
                result.skipped += 1
                continue
            if member.get("status", "Active") != "Active":
                result.skipped += 1
                continue
            lti_user, _ = LtiUser.objects.get_or_create(registration=registration, sub=sub)
            if lti_user.auth_user_id is None:
                # This registration's own account for the member: never another registration's.
                user = new_account(registration, sub)
                user.first_name = str(member.get("given_name") or member.get("name") or "")[:150]
                user.last_name = str(member.get("family_name") or "")[:150]
                user.email = str(member.get("email") or "")[:254]
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
    """Sync every LMS course linked to the offering; one that fails is reported in `errors` and the
    others are synced all the same."""
    total = RosterResult()
    contexts = list(contexts_of(offering))
    if not contexts:
        raise RosterError("No LMS course is linked yet: launch from the LMS once first.")
    for context in contexts:
        try:
            result = sync_context(context, offering)
        except RosterError as error:
            total.errors.append(f"{context.title or context.id_on_platform}: {error}")
            continue
        total.members += result.members
        total.added += result.added
        total.skipped += result.skipped
    return total
