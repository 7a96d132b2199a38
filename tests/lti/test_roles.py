"""LTI roles to roles in an offering, and the local username of an LMS identity (pure: no
database)."""

from __future__ import annotations

import pytest
from lti_tool.models import LtiRegistration

from lti.launch import makes_author, offering_role, username_for


@pytest.mark.parametrize(
    ("roles", "ours"),
    [
        (("Learner",), "student"),
        (("Instructor",), "instructor"),
        (("TeachingAssistant",), "ta"),
        # The sub-role implies its principal: a platform may send both for a TA (Canvas).
        (("Instructor", "TeachingAssistant"), "ta"),
        (("ContentDeveloper",), None),
        (("Learner", "Instructor"), "instructor"),
        (("Mentor",), None),
    ],
)
def test_lti_roles_map_to_offering_roles(roles, ours):
    from lti.demo_platform import ROLES

    assert offering_role([ROLES[r] for r in roles]) == ours
    assert offering_role(list(roles)) == ours  # the short form some platforms send


def test_institution_role_alone_gives_no_offering_role():
    assert (
        offering_role(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"])
        is None
    )


def test_content_developer_makes_an_author_only_where_the_site_says_so(settings):
    from lti.demo_platform import ROLES

    roles = [ROLES["ContentDeveloper"], ROLES["Learner"]]
    settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR = False
    assert not makes_author(roles)
    settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR = True
    assert makes_author(roles)
    assert not makes_author([ROLES["Instructor"]])


def _registration(issuer: str, client_id: str) -> LtiRegistration:
    return LtiRegistration(issuer=issuer, client_id=client_id)


def test_local_username_depends_on_issuer_client_id_and_sub():
    a = _registration("https://a.example", "one")
    assert username_for(a, "42") == username_for(_registration("https://a.example", "one"), "42")
    assert username_for(a, "42") != username_for(_registration("https://b.example", "one"), "42")
    # Two registrations of one issuer (Canvas cloud): two identities, never one account.
    assert username_for(a, "42") != username_for(_registration("https://a.example", "two"), "42")
    assert len(username_for(a, "x" * 500)) <= 150
