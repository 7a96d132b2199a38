"""The independent platform (lti1p3platform, via lti.demo_platform) on a free localhost port,
registered with the tool served by the live test server; and a helper that launches over HTTP."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pytest
import requests

from lti.demo_platform import DemoPlatform

CONTEXT_TITLE = "Hardware Reality (demo LMS)"


@pytest.fixture
def platform(live_server, course):
    """The platform, its LMS course already linked to the default offering, as on a site that
    had one course before offerings (tests/lti/test_offerings.py starts from none)."""
    from tests.factories import default_offering

    lms = unlinked_platform(live_server)
    link_context(lms, lms.shape.context_id, default_offering(course))
    yield lms
    lms.stop()


def unlinked_platform(live_server, **kwargs) -> DemoPlatform:
    """A started platform, registered, with no LMS course linked yet (the caller stops it)."""
    from lti.tool import register_platform

    # A short poll: stopping the platform waits for its serving loop to notice, 0.5 s by default.
    lms = DemoPlatform(live_server.url, **kwargs).start(poll_interval=0.02)
    register_platform(**lms.registration_args())
    return lms


def link_context(lms: DemoPlatform, context_id: str, offering):
    """Link the platform's LMS course `context_id` to `offering` (its first instructor launch
    would have)."""
    from lti_tool.models import LtiContext, LtiDeployment

    from lti.models import ContextOffering

    deployment = LtiDeployment.objects.get(
        registration__issuer=lms.issuer,
        registration__client_id=lms.client_id,
        deployment_id=lms.deployment_id,
    )
    context, _ = LtiContext.objects.get_or_create(
        deployment=deployment, id_on_platform=context_id, defaults={"title": CONTEXT_TITLE}
    )
    ContextOffering.objects.update_or_create(context=context, defaults={"offering": offering})
    return context


@pytest.fixture
def platforms(live_server, course):
    """Start (and register) more platforms, of any LMS shape: `platforms(shape, register=True)`."""
    from lti.tool import register_platform

    started = []

    def start(shape=None, *, register: bool = True, **options):
        from lti.demo_shapes import PLAIN
        from tests.factories import default_offering

        lms = DemoPlatform(live_server.url, shape=shape or PLAIN, **options)
        started.append(lms.start(poll_interval=0.02))
        if register:
            register_platform(**lms.registration_args())
            # Its LMS course is the default offering's, as `platform`'s is.
            link_context(lms, lms.shape.context_id, default_offering(course))
        return lms

    yield start
    for lms in started:
        lms.stop()


@dataclass
class Launched:
    session: requests.Session
    form: dict
    response: requests.Response

    def again(self, **fields):
        """Post the same launch form (or an altered one) a second time."""
        data = {"id_token": self.form["id_token"], "state": self.form["state"], **fields}
        return self.session.post(self.form["launch_url"], data=data, allow_redirects=False)


def launch(
    lms: DemoPlatform, session: requests.Session | None = None, *, post: bool = True, **spec
) -> Launched:
    """Start a launch at the platform, follow it through our login endpoint and the platform's
    authorization step, and post the signed launch to our launch URL (as a browser would).
    With post=False the signed form is not posted: `again()` posts it, or an altered one."""
    session = session or requests.Session()
    lms.last_launch = None
    page = session.get(lms.start_url(**spec), timeout=20)
    if lms.last_launch is None and "/lti/login/" in page.text:
        # A platform that posts its login initiation (Canvas, Moodle): submit its form.
        action = html.unescape(re.search(r'action="([^"]+)"', page.text).group(1))
        fields = re.findall(r'name="([^"]+)" value="([^"]*)"', page.text)
        data = {html.unescape(k): html.unescape(v) for k, v in fields}
        page = session.post(action, data=data, timeout=20)
    assert page.status_code == 200, page.text[:500]
    form = dict(lms.last_launch)
    if not post:
        return Launched(session, form, None)
    response = session.post(
        form["launch_url"],
        data={"id_token": form["id_token"], "state": form["state"]},
        allow_redirects=False,
        timeout=20,
    )
    return Launched(session, form, response)


def assert_refused(response: requests.Response, code: str, *, status: int = 400, claim=None):
    """The refusal page for `code`: its status, its message's first sentence, the claim named
    for the administrator, and never a stack trace."""
    from lti.refusals import MESSAGES

    assert response.status_code == status, (response.status_code, response.text[:400])
    text = response.text
    headline = MESSAGES[code].split(". ", 1)[0]
    page = text[text.find("<h1") : text.find("</section")]
    assert headline.replace("'", "&#x27;") in text, (code, page)
    assert f"refusal <code>{code}</code>" in text
    if claim is not None:
        assert f"the claim at fault is <code>{claim}</code>" in text
    assert "Traceback" not in text
