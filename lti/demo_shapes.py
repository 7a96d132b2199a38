"""How each big LMS shapes what it sends a tool, for the demo platform (lti.demo_platform).

Each shape is what that LMS's registration screen shows and what its launches carry: the
issuer (a fixed one for the cloud products, the site's own address for self-hosted ones), the
form of its client and deployment ids, its line-item and roster URLs (query strings included),
whether it pages its roster, and the audience it wants in our access-token request. The
values follow each product's published LTI 1.3 documentation; ids and hosts are made up.

`service_host` is the host the LMS's pages and services are on when it is not the host of its
issuer, login, token or key set (Canvas and Blackboard: the school's own domain); the demo
serves it as "localhost" and the rest as "127.0.0.1", so a registration that forgets it
is refused exactly as it would be in production.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    name: str
    # None: the platform's own base URL (self-hosted LMSs: Moodle, Brightspace, Open edX).
    issuer: str | None
    client_id: str
    deployment_id: str
    context_id: str
    # Paths (query strings allowed) on the service host; {course} and {deployment} filled in,
    # {id} is a line item's id.
    lineitems: str
    lineitem: str
    memberships: str
    course: str = "42"
    # Members per roster page (None: the whole roster in one page), and the cursor's prefix.
    page_size: int | None = None
    cursor: str = "AbC"
    login_method: str = "GET"
    # The `aud` the LMS wants in our client-credentials assertion (None: its token URL).
    token_audience: str | None = None
    # Whether the pages and services are on another host than the login, token and key set.
    separate_service_host: bool = False
    # Opaque `data` the LMS puts in its deep-linking request (to be echoed back).
    dl_data: str | None = None

    def path(self, template: str, *, course: str | None = None, **values) -> str:
        """`template` for this LMS's course `course` (by default the shape's own one)."""
        return template.format(
            course=course or self.course, deployment=self.deployment_id, **values
        )


OPENEDX = Shape(
    name="openedx",
    issuer=None,
    client_id="a4f6bd6e-5b59-4a2c-9b42-0f0e2c1c8a11",
    deployment_id="1",
    context_id="course-v1:HeldOut+LTI+2025",
    lineitems="/api/lti_consumer/v1/lti/7/lti-ags",
    lineitem="/api/lti_consumer/v1/lti/7/lti-ags/{id}",
    memberships="/api/lti_consumer/v1/lti/course-v1:HeldOut+LTI+2025/memberships",
    page_size=2,
)
CANVAS = Shape(
    name="canvas",
    issuer="https://canvas.instructure.com",
    client_id="10000000000123",
    deployment_id="123:8865aa05b4b79b64a91a86042e43af5ea8ae79eb",
    context_id="4dde05e8ca1973bcca9bffc13e1548820eee93a3",
    lineitems="/api/lti/courses/{course}/line_items",
    lineitem="/api/lti/courses/{course}/line_items/{id}",
    memberships="/api/lti/courses/{course}/names_and_roles",
    page_size=2,
    cursor="Page",
    login_method="POST",
    separate_service_host=True,
    dl_data="eyJhbGciOiJIUzI1NiJ9.Q2FudmFzT3BhcXVl.c2ln",
)
MOODLE = Shape(
    name="moodle",
    issuer=None,
    client_id="AbCdEf123",
    deployment_id="4",
    context_id="2",
    course="2",
    lineitems="/mod/lti/services.php/{course}/lineitems?type_id=4",
    lineitem="/mod/lti/services.php/{course}/lineitems/{id}/lineitem?type_id=4",
    memberships="/mod/lti/services.php/CourseSection/{course}/bindings/4/memberships",
    login_method="POST",
)
BRIGHTSPACE = Shape(
    name="brightspace",
    issuer=None,
    client_id="3c1c5b6a-7f0e-4d52-a1c9-2f7f3f3c9e10",
    deployment_id="0f2c9e2f-5d8b-4b1e-9c3a-7e6d5c4b3a21",
    context_id="6606",
    course="6606",
    lineitems="/d2l/api/lti/ags/2.0/deployment/{deployment}/orgunit/{course}/lineitems",
    lineitem="/d2l/api/lti/ags/2.0/deployment/{deployment}/orgunit/{course}/lineitems/{id}",
    memberships="/d2l/api/lti/nrps/2.0/deployment/{deployment}/orgunit/{course}/members",
    login_method="POST",
    token_audience="https://api.brightspace.com/auth/token",
)
BLACKBOARD = Shape(
    name="blackboard",
    issuer="https://blackboard.com",
    client_id="9a7e3f2c-1b4d-4e6f-8a0b-c2d4e6f8a0b1",
    deployment_id="5e3c1a9f-7b2d-4f6e-8c0a-1b3d5f7e9a2c",
    context_id="d2b7a4f1c9e84b3a",
    course="_123_1",
    lineitems="/learn/api/v1/lti/courses/{course}/lineItems",
    lineitem="/learn/api/v1/lti/courses/{course}/lineItems/_{id}_1",
    memberships="/learn/api/v1/lti/external/namesandroles/{course}",
    separate_service_host=True,
)
SHAPES = {s.name: s for s in (OPENEDX, CANVAS, MOODLE, BRIGHTSPACE, BLACKBOARD)}
# What tests and `make lti-demo` use unless told otherwise: a plain self-hosted platform.
PLAIN = Shape(
    name="plain",
    issuer=None,
    client_id="hardware-reality",
    deployment_id="deployment-1",
    context_id="course-101",
    course="course-101",
    lineitems="/ags/{course}/lineitems",
    lineitem="/ags/{course}/lineitems/{id}",
    memberships="/nrps/{course}/memberships",
)
