"""LTI roles to course roles (pure: no database)."""

from __future__ import annotations

import pytest

from lti.launch import course_role, username_for


@pytest.mark.parametrize(
    ("roles", "ours"),
    [
        (("Learner",), "student"),
        (("Instructor",), "instructor"),
        (("TeachingAssistant",), "instructor"),
        (("ContentDeveloper",), "author"),
        (("Learner", "Instructor"), "instructor"),
    ],
)
def test_lti_roles_map_to_course_roles(roles, ours):
    from lti.demo_platform import ROLES

    assert course_role([ROLES[r] for r in roles]) == ours
    assert course_role(list(roles)) == ours  # the short form some platforms send


def test_institution_role_alone_gives_no_course_role():
    assert (
        course_role(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"])
        is None
    )


def test_local_username_depends_on_issuer_and_sub_only():
    assert username_for("https://a.example", "42") == username_for("https://a.example", "42")
    assert username_for("https://a.example", "42") != username_for("https://b.example", "42")
    assert len(username_for("https://a.example", "x" * 500)) <= 150
