"""The independent platform (lti1p3platform, via lti.demo_platform) on a free localhost port,
registered with the tool served by the live test server; and a helper that launches over HTTP."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import requests

from lti.demo_platform import CONTEXT_ID, CONTEXT_TITLE, DemoPlatform


@pytest.fixture
def platform(live_server, course):
    """The platform, its course (CONTEXT_ID) already linked to the default offering, as on a
    site that had one course before offerings (tests/lti/test_offerings.py starts from none)."""
    from tests.factories import default_offering

    lms = unlinked_platform(live_server)
    link_context(lms, CONTEXT_ID, default_offering(course))
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


@dataclass
class Launched:
    session: requests.Session
    form: dict
    response: requests.Response

    def again(self, **fields):
        """Post the same launch form (or an altered one) a second time."""
        data = {"id_token": self.form["id_token"], "state": self.form["state"], **fields}
        return self.session.post(self.form["launch_url"], data=data, allow_redirects=False)


def launch(lms: DemoPlatform, session: requests.Session | None = None, **spec) -> Launched:
    """Start a launch at the platform, follow it through our login endpoint and the platform's
    authorization step, and post the signed launch to our launch URL (as a browser would)."""
    session = session or requests.Session()
    page = session.get(lms.start_url(**spec), timeout=20)
    assert page.status_code == 200, page.text[:500]
    form = dict(lms.last_launch)
    response = session.post(
        form["launch_url"],
        data={"id_token": form["id_token"], "state": form["state"]},
        allow_redirects=False,
        timeout=20,
    )
    return Launched(session, form, response)
