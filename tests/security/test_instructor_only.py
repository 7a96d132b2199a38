"""A teaching assistant who tries each instructor-only action gets a 403 and changes nothing
(issue 27): the URL resolver is walked, so every page declared for instructors alone (roster,
groups, set-password links, group extensions, accommodations, quiz settings, regrade apply...)
is tried by the offering's own teaching assistant, GET and POST, plain and htmx, with the
offering's own rows in the address and the form."""

from __future__ import annotations

import pytest
from django.test import Client

from courseware.models import Role
from tests.security.offering_world import build, snapshot
from tests.security.test_offering_isolation import REQUESTS, _send, _url, offering_routes

pytestmark = pytest.mark.django_db

# The instructor-only actions issue 27 added: each must be among the routes walked below.
ISSUE_27_ACTIONS = {
    "instructor:roster_add",
    "instructor:roster_upload",
    "instructor:roster_confirm",
    "instructor:roster_status",
    "instructor:roster_role",
    "instructor:group_create",
    "instructor:group_members",
    "instructor:group_delete",
    "instructor:password_link",
    "instructor:grant_group_extension",
    "instructor:grant_accommodation",
    "instructor:remove_group_extension",
    "instructor:remove_accommodation",
    "instructor:quiz_new",
    "instructor:quiz_settings",
    "instructor:quiz_publish",
    "instructor:quiz_file",
    "instructor:quiz_pool",
    "instructor:quiz_pool_remove",
    "instructor:quiz_preview",
}


def instructor_only_routes():
    return [r for r in offering_routes() if r.roles == frozenset({Role.INSTRUCTOR})]


def test_the_issues_instructor_only_actions_are_declared_for_instructors_alone():
    names = {route.name for route in instructor_only_routes()}
    assert ISSUE_27_ACTIONS <= names, ISSUE_27_ACTIONS - names


def test_a_teaching_assistant_is_refused_every_instructor_only_action_and_changes_nothing(
    course, database_tasks
):
    a, _ = build(course)
    before = snapshot(a.offering)
    client = Client()
    client.force_login(a.ta)
    failures = []
    for route in instructor_only_routes():
        url = _url(route, a.kwargs())
        for method, htmx in REQUESTS:
            response = _send(client, method, url, a.body(), htmx)
            if response.status_code not in (403, 405):
                failures.append(f"{route.name} {method}{' htmx' if htmx else ''}: {response}")
    assert not failures, "\n".join(failures)
    assert snapshot(a.offering) == before
