"""Issue 26, isolation proved: every staff and student URL of one offering, run against the other
offering's rows and users, plain and htmx, GET and POST, answers 403 or 404, shows nothing of
the other offering and changes none of its rows.

The URL resolver is walked, so a URL added later is covered or fails `test_every_url_is_covered`:
an offering's page (its route carries `<offering>`) must say which roles it is for
(`courseware.roles`), a site-wide page must be for a site role, and anything else must be on the
short list below with the reason it belongs to no offering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.security.offering_world import SENTINELS, build, snapshot

pytestmark = pytest.mark.django_db

# Routes that belong to no offering, each with why (checked to exist, so the list stays true).
SITE_WIDE = {
    "courseware:home": "the home page lists the reader's own offerings and the book",
    "courseware:chapter_detail": "the book is site-wide content",
    "courseware:mark_read": "reading progress is the reader's own, book-wide",
    "courseware:roofline_chart": "a public tool",
    "courseware:calculator": "a public tool",
    "courseware:favicon": "a static icon",
    "site:landing": "where a login lands: a redirect to one of the reader's own pages",
    "legacy:to_offering": "old addresses redirect into the reader's own offering (tested below)",
    "legacy:studio_quizzes": "the same, for the old studio quiz pages",
    "legacy:lms": "the same, for the old LMS grades page",
    "lti:login": "LTI protocol endpoint (tests/lti)",
    "lti:launch": "LTI protocol endpoint: maps the launch to its context's offering (tests/lti)",
    "lti:jwks": "the tool's public keys",
    "lti:deep_link": "bound to the launching session's own offering (tests/lti)",
    "lti:configuration": "the LMS registration values, for Django staff",
    "health:healthz": "a monitor's liveness check: no row of any offering",
    "health:readyz": "a monitor's readiness check: the database, cache and worker, no rows",
}
ACCOUNTS = re.compile(r"^(admin/|accounts/)")


@dataclass(frozen=True)
class Route:
    path: str
    name: str
    view: object

    @property
    def keywords(self) -> list[str]:
        return re.findall(r"<(?:\w+:)?(\w+)>", self.path)

    @property
    def roles(self) -> frozenset:
        return getattr(self.view, "offering_roles", frozenset())


def routes():
    def walk(patterns, prefix="", namespace=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                path = prefix + str(pattern.pattern)
                yield Route(path, f"{namespace}{pattern.name}", pattern.callback)

    return list(walk(get_resolver().url_patterns))


def offering_routes():
    return [r for r in routes() if "<slug:offering>" in r.path]


def test_every_url_is_covered():
    """A new page is either an offering's (and declares its roles), for a site role, or named
    here with its reason; nothing falls between."""
    uncovered, named = [], set()
    for route in routes():
        if ACCOUNTS.match(route.path):
            continue
        if "<slug:offering>" in route.path:
            if not route.roles:
                uncovered.append(f"{route.name}: an offering's URL without an offering role check")
        elif getattr(route.view, "site_role", None):
            continue
        elif route.name in SITE_WIDE:
            named.add(route.name)
        else:
            uncovered.append(f"{route.name} ({route.path}): neither an offering's nor site-wide")
    assert not uncovered, uncovered
    assert named == set(SITE_WIDE), set(SITE_WIDE) - named
    assert len(offering_routes()) >= 35  # every student, staff and LMS page of an offering


# ---------------------------------------------------------------- the requests


@pytest.fixture
def world(course, database_tasks):
    """Offerings A and B. Tasks wait in the database: nothing a request queues runs here."""
    return build(course)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _url(route: Route, values: dict) -> str:
    return reverse(route.name, kwargs={k: values[k] for k in route.keywords})


def _roles(route: Route) -> list[str]:
    return sorted(route.roles)


def _send(client, method: str, url: str, body: dict, htmx: bool):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    if method == "get":
        return client.get(url, **headers)
    return client.post(url, body, **headers)


def _leaks(response) -> list[str]:
    content = b"".join(response) if response.streaming else response.content
    text = content.decode(errors="replace")
    return [s for s in SENTINELS if s in text]


REQUESTS = [(m, h) for m in ("get", "post") for h in (False, True)]


def test_a_members_own_offering_url_naming_the_other_offerings_rows_is_refused(world):
    """An A member, on A's URL, with B's ids (attempt, variant, quiz, student, item, run, LMS
    sync, chapter) in the URL and in the form: 403/404, nothing of B shown, nothing of B
    changed."""
    a, b = world
    before = snapshot(b.offering)
    failures = []
    for route in offering_routes():
        names_rows = len(route.keywords) > 1
        # Each role of A; for a student's page also the student enrolled in both, naming
        # their own attempt in B through A's address.
        people = [(role, a.user(role), False) for role in _roles(route)]
        if "student" in route.roles:
            people.append(("student of both", a.extra_students[0], True))
        for who, user, dual in people:
            url = _url(route, {**b.kwargs(dual=dual), "offering": a.offering.slug})
            client = _client(user)
            for method, htmx in REQUESTS:
                response = _send(client, method, url, b.body(), htmx)
                where = f"{route.name} as A's {who}, {method}{' htmx' if htmx else ''}: {url}"
                if names_rows and response.status_code not in (403, 404, 405):
                    failures.append(f"{where} answered {response.status_code}")
                if leaked := _leaks(response):
                    failures.append(f"{where} showed {leaked}")
    assert not failures, "\n".join(failures)
    assert snapshot(b.offering) == before


def test_the_other_offerings_members_are_refused_on_every_url(world):
    """B's student, teaching assistant and instructor on every URL of A, with A's own rows:
    403 (405 for a method the page does not take), and nothing of A changed."""
    a, b = world
    before = snapshot(a.offering)
    failures = []
    for route in offering_routes():
        url = _url(route, a.kwargs())
        for role in ("student", "ta", "instructor"):
            client = _client(b.user(role))
            for method, htmx in REQUESTS:
                response = _send(client, method, url, a.body(), htmx)
                if response.status_code not in (403, 405):
                    failures.append(
                        f"{route.name} as B's {role}, {method}{' htmx' if htmx else ''}: "
                        f"{response.status_code}"
                    )
    assert not failures, "\n".join(failures)
    assert snapshot(a.offering) == before


def test_a_members_posts_on_their_own_rows_never_reach_the_other_offering(world):
    """A's own rows in the URL, B's ids in the form (an extension on B's quiz, an override of
    B's question, a template added through B's quiz): whatever A's page does, B's rows stay
    exactly as they were and nothing of B is shown."""
    a, b = world
    before = snapshot(b.offering)
    failures = []
    for route in offering_routes():
        url = _url(route, a.kwargs())
        for role in _roles(route):
            client = _client(a.user(role))
            for htmx in (False, True):
                response = _send(client, "post", url, b.body(), htmx)
                if leaked := _leaks(response):
                    failures.append(f"{route.name} as A's {role}: showed {leaked}")
    assert not failures, "\n".join(failures)
    assert snapshot(b.offering) == before


def test_anonymous_visitors_are_sent_to_log_in_from_every_offering_url(world, client):
    a, _ = world
    for route in offering_routes():
        url = _url(route, a.kwargs())
        response = client.get(url)
        assert response.status_code in (302, 405), (route.name, response.status_code)
        if response.status_code == 302:
            assert response["Location"].startswith(reverse("login")), route.name


def test_an_offering_that_does_not_exist_is_a_404_for_a_member_of_another(world):
    a, _ = world
    client = _client(a.instructor)
    for route in offering_routes():
        values = {**a.kwargs(), "offering": "no-such-offering"}
        response = client.get(_url(route, values))
        assert response.status_code in (404, 405), (route.name, response.status_code)


# ---------------------------------------------------------------- site-wide pages


def test_site_role_pages_refuse_every_offering_role(world):
    """The studio is the site's authors', the offerings pages its administrators': an
    instructor, teaching assistant or student of an offering reaches neither."""
    a, b = world
    values = {"slug": b.offering.slug, "enrollment_id": 1, "run_id": 1}
    for route in routes():
        role = getattr(route.view, "site_role", None)
        if not role:
            continue
        keywords = {k: values.get(k, "decode-step-memory-floor") for k in route.keywords}
        url = reverse(route.name, kwargs=keywords)
        for user in (a.student, a.ta, a.instructor):
            for method in ("get", "post"):
                response = getattr(_client(user), method)(url)
                assert response.status_code in (403, 405), (route.name, user, response)
