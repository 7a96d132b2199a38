"""lti1p3platform, adapted into the demo LMS (lti.demo_platform): its registration, login,
launch, grade and roster services, reading and writing the DemoPlatform's in-memory state.

Everything a platform signs and checks is lti1p3platform's; what is here is what it leaves to
the platform that uses it (where registrations and line items are kept), plus what lets a test
change a launch after it is built (`Registration.tweak`: clock, claims, deep-linking settings).
"""

from __future__ import annotations

import html
import time

import jwt
from lti1p3platform.exceptions import LineItemNotFoundException, LtiServiceException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration as PlatformRegistration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
)

ROLES = {
    "Learner": "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",
    "Instructor": "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "TeachingAssistant": "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
    "ContentDeveloper": "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
    "Mentor": "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor",
}
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


class _Request(Request):
    def build_metadata(self, request):
        return request


class Registration(PlatformRegistration):
    """lti1p3platform's registration, signing with the platform's current key, and letting a
    launch change the message after its times are set (`tweak`)."""

    tweak = None

    def platform_encode_and_sign(self, payload, expiration=None):
        if expiration:
            now = int(time.time())
            payload.update({"iat": now, "exp": now + expiration})
        if self.tweak is not None:
            self.tweak(payload)
        headers = {"kid": self.get_kid()}
        return jwt.encode(payload, self.get_platform_private_key(), "RS256", headers=headers)


def _tweak(spec: dict):
    """What a launch spec changes in the signed message: `clock` shifts iat/exp/nbf (a platform
    whose clock is off), `dl` changes deep-linking settings (None removes one), `claims` sets
    claims, `drop` removes them."""

    def apply(payload: dict) -> None:
        for claim in ("iat", "exp", "nbf"):
            if claim in payload and spec.get("clock"):
                payload[claim] += spec["clock"]
        if spec.get("dl") and DL_SETTINGS in payload:
            settings = payload[DL_SETTINGS]
            for key, value in spec["dl"].items():
                if value is None:
                    settings.pop(key, None)
                else:
                    settings[key] = value
        payload.update(spec.get("claims", {}))
        for claim in spec.get("drop", ()):
            payload.pop(claim, None)

    return apply


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self.platform = kwargs["platform"]

    def get_registration_by_params(self, **kwargs):
        p = self.platform
        tool = p.tool_url
        return (
            Registration()
            .set_iss(p.issuer)
            .set_client_id(p.client_id)
            .set_deployment_id(p.deployment_id)
            .set_oidc_login_url(f"{tool}/lti/login/")
            .set_launch_url(f"{tool}/lti/launch/")
            .set_deeplink_launch_url(f"{tool}/lti/launch/")
            .set_tool_key_set_url(f"{tool}/lti/jwks/")
            .set_platform_public_key(p.public_pem)
            .set_platform_private_key(p.private_pem)
        )

    def get_jwks(self):
        return {"keys": [PlatformRegistration.get_jwk(k) for k in self.platform.published_keys]}


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def __init__(self, request, conf, platform, spec):
        super().__init__(request, conf)
        self.platform, self.spec = platform, spec

    def prepare_launch(self, preflight_response):
        p, s = self.platform, self.spec
        self.set_user_data(s["user"], [ROLES[r] for r in s["roles"]], s.get("name"), s.get("email"))
        # The shape's LMS course, unless the spec names another (`context`: its id, also its
        # place in the service URLs); each is its own offering on the tool.
        course = s.get("context") or p.shape.course
        p.courses.add(course)
        self.set_launch_context_claim(
            s.get("context") or p.shape.context_id,
            context_title=s.get("context_title", "Hardware Reality (demo LMS)"),
            context_label=s.get("context_label"),
        )
        self.set_launch_presentation_claim(document_target="iframe")
        self.set_nrps(p.service(p.shape.memberships, course=course))
        self.set_ags(p.service(p.shape.lineitems, course=course), s.get("lineitem"))
        if s.get("deep_link"):
            extra = {} if p.shape.dl_data is None else p.shape.dl_data
            self.set_dl(f"{p.service_url}/deep_link_return", title="Pick content")
            if extra:  # lti1p3platform only takes a dict for `data`; real LMSs send a string
                self._deep_linking_launch_data[DL_SETTINGS]["data"] = extra
        else:
            self.set_resource_link_claim(s.get("link", "link-1"), title=s.get("title", ""))
            self.set_custom_parameters_claim(s.get("custom", {}))
        if s.get("expires_in") is not None:
            self.set_id_token_expiration(s["expires_in"])
        self._registration.tweak = _tweak(s)

    def render_launch_form(self, launch_data, **kwargs):
        self.platform.last_launch = dict(launch_data)
        fields = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(launch_data[k])}">'
            for k in ("id_token", "state")
        )
        return (
            f'<!doctype html><title>Launching</title><form id="f" method="post" '
            f'action="{html.escape(launch_data["launch_url"])}">{fields}'
            "<button>Continue to the tool</button></form>"
            '<script>document.getElementById("f").submit()</script>'
        )


class _Ags(AssignmentsGradesService):
    def __init__(self, request, conf, platform, lineitem_url=None, course=None):
        lineitems = platform.service(platform.shape.lineitems, course=course)
        super().__init__(request, conf, lineitems, lineitem_url)
        self.platform, self.course = platform, course or platform.shape.course

    def find_lineitems(self, page=1, limit=None, **filters):
        items = [
            item
            for url, item in self.platform.lineitems.items()
            if self.platform.lineitem_course.get(url, self.platform.shape.course) == self.course
        ]
        for key, field in (("tag", "tag"), ("resource_id", "resourceId")):
            if filters.get(key):
                items = [i for i in items if i.get(field) == filters[key]]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        try:
            return self.platform.lineitems[line_item_id]
        except KeyError:
            raise LineItemNotFoundException() from None

    def create_lineitem(self, creation_data):
        return self.platform.add_lineitem(dict(creation_data), course=self.course)

    def update_lineitem(self, update_data):
        item = self.find_lineitem(update_data["id"])
        item.update(update_data)
        return item

    def delete_lineitem(self, line_item_id):
        self.platform.lineitems.pop(line_item_id, None)

    def update_score(self, line_item_id, score):
        self.find_lineitem(line_item_id)
        self.platform.scores.append({"lineitem": line_item_id, **score})
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id, page=1, limit=None, user_id=None):
        latest = {}
        for score in self.platform.scores:
            if score["lineitem"] == line_item_id:
                latest[score["userId"]] = score
        return {"content": list(latest.values()), "has_next": False, "next": None}


class _Nrps(NamesRoleProvisioningService):
    """The roster, in pages of `shape.page_size` when the shape pages, each next page named by
    a case-sensitive cursor in the Link header (NRPS 2.0, 2.4.1)."""

    def __init__(self, request, conf, platform, course=None):
        super().__init__(request, conf, platform.service(platform.shape.memberships, course=course))
        self.platform, self.course = platform, course or platform.shape.course
        self.next_cursor = None

    def get_member_data_page(self, page=1, limit=None, role=None, since=None, **kwargs):
        roster = self.platform.rosters.get(self.course, self.platform.members)
        members = [dict(m) for m in roster]
        size = self.platform.shape.page_size
        if not size:
            return {"content": members, "has_next": False}
        prefix = self.platform.shape.cursor
        cursor = kwargs.get("cursor", f"{prefix}1")
        if not cursor.startswith(prefix) or not cursor[len(prefix) :].isdigit():
            raise LtiServiceException(f"unknown cursor {cursor!r}", 400)
        number = int(cursor[len(prefix) :])
        start = (number - 1) * size
        if number > 1 and start >= len(members):
            raise LtiServiceException(f"unknown cursor {cursor!r}", 400)
        if start + size < len(members):
            self.next_cursor = f"{prefix}{number + 1}"
        return {"content": members[start : start + size], "has_next": False}

    def get_context_by_id(self):
        shape = self.platform.shape
        context = shape.context_id if self.course == shape.course else self.course
        return Context(id=context, label="HR-101", title="Hardware Reality (demo LMS)")
