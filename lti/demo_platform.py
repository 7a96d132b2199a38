"""A small LTI 1.3 platform (an "LMS") for the tests and `make lti-demo`.

Everything a platform signs, checks and serves comes from the independent `lti1p3platform`
package (login initiation, the signed launch, the access-token grant, deep-linking response
validation, the AGS and NRPS services); this module only keeps its state in memory and serves
it over HTTP on a localhost port with the standard library. It records what our tool sends
(scores, line items, deep-linked items) so a test can assert on it, and can be told to be down.

Not imported by the site: the tests start it in a thread, `make lti-demo` runs
`python -m lti.demo_platform`.
"""

from __future__ import annotations

import argparse
import html
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from jwcrypto.jwk import JWK
from lti1p3platform.exceptions import LineItemNotFoundException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
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
CONTEXT_ID = "course-101"
CONTEXT_TITLE = "Hardware Reality (demo LMS)"


class _Request(Request):
    def build_metadata(self, request):
        return request


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
        # One LMS course unless the spec names another (each is its own offering on the tool).
        context = s.get("context", CONTEXT_ID)
        self.set_launch_context_claim(
            context,
            context_title=s.get("context_title", CONTEXT_TITLE),
            context_label=s.get("context_label"),
        )
        self.set_launch_presentation_claim(document_target="iframe")
        self.set_nrps(f"{p.url}/nrps/{context}/memberships")
        self.set_ags(f"{p.url}/ags/{context}/lineitems", s.get("lineitem"))
        if s.get("deep_link"):
            self.set_dl(f"{p.url}/deep_link_return", title="Pick content")
        else:
            self.set_resource_link_claim(s.get("link", "link-1"), title=s.get("title", ""))
            self.set_custom_parameters_claim(s.get("custom", {}))
        if s.get("expires_in") is not None:
            self.set_id_token_expiration(s["expires_in"])

    def get_launch_message(self, include_extra_claims=True):
        message = super().get_launch_message(include_extra_claims)
        message.update(self.spec.get("claims", {}))
        return message

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
    def __init__(self, request, conf, platform, lineitem_url=None, context=CONTEXT_ID):
        super().__init__(request, conf, f"{platform.url}/ags/{context}/lineitems", lineitem_url)
        self.platform, self.context = platform, context

    def find_lineitems(self, page=1, limit=None, **filters):
        base = f"{self.platform.url}/ags/{self.context}/lineitems/"
        items = [i for i in self.platform.lineitems.values() if i["id"].startswith(base)]
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
        return self.platform.add_lineitem(dict(creation_data), self.context)

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
    def __init__(self, request, conf, platform, context=CONTEXT_ID):
        super().__init__(request, conf, f"{platform.url}/nrps/{context}/memberships")
        self.platform, self.context = platform, context

    def get_member_data_page(self, page=1, limit=None, role=None, since=None, **kwargs):
        members = self.platform.rosters.get(self.context, self.platform.members)
        return {"content": [dict(m) for m in members], "has_next": False}

    def get_context_by_id(self):
        return Context(id=self.context, label="HR-101", title=CONTEXT_TITLE)


class DemoPlatform:
    """The platform: start(), then point a browser or `requests` at start_url(...)."""

    def __init__(
        self, tool_url, *, host="127.0.0.1", port=0, client_id="hardware-reality", issuer=None
    ):
        """`issuer`: the platform's `iss` (default: its own URL); two platforms given one
        issuer and their own client ids are two registrations of one LMS (Canvas cloud)."""
        self.tool_url = tool_url.rstrip("/")
        self.client_id, self.deployment_id = client_id, "deployment-1"
        key = JWK.generate(kty="RSA", size=2048)
        self.private_pem = key.export_to_pem(private_key=True, password=None).decode()
        self.public_pem = key.export_to_pem().decode()
        self.lineitems, self.scores, self.deep_linked, self.links = {}, [], [], []
        self.members = [
            {"user_id": "student-ada", "name": "Ada Lovelace", "roles": [ROLES["Learner"]]},
            {"user_id": "student-alan", "name": "Alan Turing", "roles": [ROLES["Learner"]]},
            {"user_id": "teacher-grace", "name": "Grace Hopper", "roles": [ROLES["Instructor"]]},
        ]
        # Another LMS course's members: {context id: members} (default: `members`).
        self.rosters: dict[str, list] = {}
        self.down = False
        self.last_launch = None
        self._hints: dict[str, dict] = {}
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        shown_host = "localhost" if host in {"127.0.0.1", "localhost"} and port == 0 else host
        self.url = f"http://{shown_host}:{self._server.server_address[1]}"
        self.issuer = issuer or self.url

    # -- control ---------------------------------------------------------------------------
    def start(self, *, poll_interval: float = 0.5):
        """Serve in a thread; `stop` waits up to `poll_interval` s for it (tests pass less)."""
        thread = threading.Thread(
            target=self._server.serve_forever, args=(poll_interval,), daemon=True
        )
        thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    def registration_args(self) -> dict:
        """What `lti_add_platform` needs, as keyword arguments of lti.tool.register_platform."""
        return {
            "name": "Demo LMS",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "deployment_ids": [self.deployment_id],
            "auth_login_url": f"{self.url}/auth",
            "token_url": f"{self.url}/token",
            "jwks_url": f"{self.url}/jwks",
        }

    def add_lineitem(self, data: dict, context: str = CONTEXT_ID) -> dict:
        data["id"] = f"{self.url}/ags/{context}/lineitems/{len(self.lineitems) + 1}"
        self.lineitems[data["id"]] = data
        return data

    def start_url(self, *, user="student-ada", roles=("Learner",), **spec) -> str:
        """A platform URL that starts a launch (OIDC login initiation) for this user."""
        hint = uuid.uuid4().hex
        self._hints[hint] = {"user": user, "roles": list(roles), **spec}
        return f"{self.url}/start?hint={hint}"

    # -- protocol steps --------------------------------------------------------------------
    def conf(self):
        conf = _Conf(platform=self)
        conf.get_registration()
        return conf

    def preflight_url(self, hint: str) -> str:
        login = _Login(_Request({}), self.conf())
        login.set_lti_message_hint(hint=hint)
        return login.initiate_login(self._hints[hint]["user"])

    def launch_form(self, request: dict) -> str:
        spec = self._hints[request["get_data"].get("lti_message_hint", "")]
        return _Launch(_Request(request), self.conf(), self, spec).lti_launch()

    def deep_link_return(self, form: dict) -> list:
        items = self.conf().validate_deeplinking_resp(form)
        for item in items:
            lineitem = None
            if item.get("lineItem"):
                lineitem = self.add_lineitem(dict(item["lineItem"]))["id"]
            self.links.append(
                {
                    "link": f"link-{len(self.links) + 1}",
                    "title": item.get("title", ""),
                    "custom": item.get("custom", {}),
                    "lineitem": lineitem,
                }
            )
        self.deep_linked.extend(items)
        return items


def _page(body: str) -> bytes:
    return f"<!doctype html><meta charset=utf-8><title>Demo LMS</title>{body}".encode()


def _handler(platform: DemoPlatform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet: tests and the demo print their own lines
            pass

        def _request(self) -> dict:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            ctype = self.headers.get("Content-Type", "")
            return {
                "method": self.command,
                "path": parts.path,
                "get_data": dict(parse_qsl(parts.query)),
                "form_data": dict(parse_qsl(body.decode())) if "form" in ctype else {},
                "json": json.loads(body) if body and "json" in ctype else None,
                "headers": {k: v for k, v in self.headers.items()},
                "content_type": ctype,
            }

        def _send(self, code, body=b"", ctype="text/html; charset=utf-8", location=None):
            self.send_response(code)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _service(self, response):
            data = response.result if response.code < 300 else {"error": response.message}
            if isinstance(data, dict) and "content" in data:
                data = data["content"]
            self._send(response.code, json.dumps(data or {}).encode(), response.media_type)

        def do_GET(self):
            self._route(self._request())

        def do_POST(self):
            self._route(self._request())

        def do_PUT(self):
            self._route(self._request())

        def _route(self, req):
            path = req["path"]
            services = path.startswith(("/ags/", "/nrps/", "/token"))
            if services and platform.down:
                return self._send(503, b'{"error": "down"}', "application/json")
            if path == "/":
                return self._send(200, _home(platform))
            if path == "/start":
                return self._send(302, location=platform.preflight_url(req["get_data"]["hint"]))
            if path == "/auth":
                return self._send(200, platform.launch_form(req).encode())
            if path == "/jwks":
                body = json.dumps(platform.conf().get_jwks()).encode()
                return self._send(200, body, "application/json")
            if path == "/token":
                token = platform.conf().get_access_token(req["form_data"])
                return self._send(200, json.dumps(token).encode(), "application/json")
            if path == "/deep_link_return":
                items = platform.deep_link_return(req["form_data"])
                titles = "".join(f"<li>{html.escape(i.get('title', ''))}</li>" for i in items)
                back = '<p><a href="/" target="_top">Back to the course page</a></p>'
                return self._send(
                    200, _page(f"<h1>Placed in the course</h1><ul>{titles}</ul>{back}")
                )
            parts = path.strip("/").split("/")
            if len(parts) == 3 and parts[0] == "nrps" and parts[2] == "memberships":
                nrps = _Nrps(_Request(req), platform.conf(), platform, context=parts[1])
                return self._service(nrps.handle_get_members())
            if len(parts) >= 3 and parts[0] == "ags" and parts[2] == "lineitems":
                context = parts[1]
                prefix = f"/ags/{context}/lineitems"
                rest = path[len(prefix) :].strip("/").split("/")
                conf = platform.conf()
                if rest == [""]:
                    ags = _Ags(_Request(req), conf, platform, context=context)
                    handle = (
                        ags.handle_create_lineitem
                        if req["method"] == "POST"
                        else ags.handle_get_lineitems
                    )
                    return self._service(handle())
                item_url = f"{platform.url}{prefix}/{rest[0]}"
                ags = _Ags(_Request(req), conf, platform, item_url, context=context)
                if rest[1:] == ["scores"]:
                    return self._service(ags.handle_update_score(item_url))
                if rest[1:] == ["results"]:
                    return self._service(ags.handle_get_results(item_url))
                return self._service(ags.handle_get_lineitem(item_url))
            return self._send(404, _page("<h1>Not found</h1>"))

    return Handler


def _home(platform: DemoPlatform) -> bytes:
    def link(text, **spec):
        url = html.escape(platform.start_url(**spec))
        return f'<li><a href="{url}" target="tool">{html.escape(text)}</a></li>'

    placed = "".join(
        link(
            f"Open “{p['title']}” as Ada (student)",
            user="student-ada",
            name="Ada Lovelace",
            link=p["link"],
            custom=p["custom"],
            lineitem=p["lineitem"],
            title=p["title"],
        )
        + link(
            f"Open “{p['title']}” as Grace (instructor)",
            user="teacher-grace",
            name="Grace Hopper",
            roles=("Instructor",),
            link=p["link"],
            custom=p["custom"],
            lineitem=p["lineitem"],
            title=p["title"],
        )
        for p in platform.links
    )
    scores = "".join(
        f"<tr><td>{html.escape(str(s.get('userId')))}</td><td>{s.get('scoreGiven')} / "
        f"{s.get('scoreMaximum')}</td><td>{html.escape(str(s.get('activityProgress')))}</td>"
        f"<td>{html.escape(str(s.get('gradingProgress')))}</td></tr>"
        for s in platform.scores
    )
    return _page(
        "<h1>Demo LMS: course HR-101</h1>"
        "<h2>1. Instructor: add content (deep linking)</h2><ul>"
        + link(
            "Add a quiz or chapter as Grace (instructor)",
            user="teacher-grace",
            name="Grace Hopper",
            roles=("Instructor",),
            deep_link=True,
        )
        + "</ul><h2>2. Links in the course</h2><ul>"
        + (placed or "<li>None yet: add one above.</li>")
        + "</ul><h2>3. Gradebook (scores the tool sent)</h2>"
        "<table id='scores'><tr><th>User</th><th>Score</th><th>Activity</th><th>Grading</th></tr>"
        + scores
        + "</table>"
        "<h2>The tool, framed as an LMS shows it</h2>"
        '<iframe name="tool" title="The Hardware Reality" width="1100" height="800"></iframe>'
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default="http://127.0.0.1:8000", help="the tool's base URL")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    platform = DemoPlatform(args.tool, port=args.port)
    print(json.dumps(platform.registration_args()), flush=True)
    platform._server.serve_forever()


if __name__ == "__main__":
    main()
