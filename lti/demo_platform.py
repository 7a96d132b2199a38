"""A small LTI 1.3 platform (an "LMS") for the tests and `make lti-demo`.

Everything a platform signs, checks and serves comes from the independent `lti1p3platform`
package (login initiation, the signed launch, the access-token grant, deep-linking response
validation, the AGS and NRPS services); this module only keeps its state in memory and serves
it over HTTP on a localhost port with the standard library. It records what our tool sends
(scores, line items, deep-linked items, every request's URL) so a test can assert on it, and
can be told to be down.

It can take the shape of each big LMS (lti.demo_shapes: issuer, id forms, service URLs, roster
paging, token audience), rotate its signing key, and change what it signs (a launch spec's
`claims`, `drop`, `clock` and `dl`), so tests drive our tool with what a real platform, or a
broken or hostile one, would send.

Not imported by the site: the tests start it in a thread, `make lti-demo` runs
`python -m lti.demo_platform`.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import jwt
from jwcrypto.jwk import JWK

from lti.demo_adapters import ROLES, _Ags, _Conf, _Launch, _Login, _Nrps, _Request
from lti.demo_shapes import PLAIN, Shape

__all__ = ["ROLES", "DemoPlatform"]


class DemoPlatform:
    """The platform: start(), then point a browser or `requests` at start_url(...)."""

    def __init__(
        self,
        tool_url,
        *,
        host="127.0.0.1",
        port=0,
        client_id=None,
        shape: Shape = PLAIN,
        issuer: str | None = None,
    ):
        """`issuer` overrides the shape's: two platforms with one issuer and their own client
        ids are two registrations of one LMS (Canvas cloud, Blackboard SaaS)."""
        self.tool_url = tool_url.rstrip("/")
        self.shape = shape
        self.client_id = client_id or shape.client_id
        self.deployment_id = shape.deployment_id
        self.published_keys: list[str] = []
        self.rotate_key()
        self.lineitems, self.scores, self.deep_linked, self.links = {}, [], [], []
        # The LMS courses launched from (their ids, as in the service URLs), each line item's
        # course, and a course's own members (default: `members`).
        self.courses: set[str] = {shape.course}
        self.lineitem_course: dict[str, str] = {}
        self.rosters: dict[str, list] = {}
        self.members = [
            {"user_id": "student-ada", "name": "Ada Lovelace", "roles": [ROLES["Learner"]]},
            {"user_id": "student-alan", "name": "Alan Turing", "roles": [ROLES["Learner"]]},
            {"user_id": "teacher-grace", "name": "Grace Hopper", "roles": [ROLES["Instructor"]]},
        ]
        self.down = False
        self.last_launch = None
        # What the tool asked for: every request line, key-set fetches, token assertions.
        self.requests: list[str] = []
        self.jwks_fetches = self.jwks_not_modified = 0
        self.jwks_cache_control: str | None = None
        # A Link header to send with every roster page instead of the real next page (a
        # platform that pages forever, or points the tool elsewhere).
        self.roster_link: str | None = None
        self.lineitems_link: str | None = None  # the same for the line-item container
        # Paths answered with a redirect (a platform sending the tool somewhere else).
        self.redirects: dict[str, str] = {}
        self.assertions: list[dict] = []
        self._hints: dict[str, dict] = {}
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        chosen_port, port = port, self._server.server_address[1]
        # A free port (tests): the platform calls itself "localhost"; a given port (make
        # lti-demo): the address it was given, as the Makefile registers it.
        named = host in {"127.0.0.1", "localhost"} and chosen_port == 0
        separate = named and shape.separate_service_host
        self.url = f"http://{'localhost' if named and not separate else host}:{port}"
        # Login, token and key set on one host; pages and services on the school's own host
        # (for the demo: "localhost" beside "127.0.0.1", both this server).
        self.service_url = f"http://localhost:{port}" if separate else self.url
        self.issuer = issuer or shape.issuer or self.service_url

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

    def rotate_key(self, *, keep_old: bool = True) -> None:
        """Sign with a new key from now on; the old one stays published unless told not to."""
        key = JWK.generate(kty="RSA", size=2048)
        self.private_pem = key.export_to_pem(private_key=True, password=None).decode()
        self.public_pem = key.export_to_pem().decode()
        self.published_keys = (self.published_keys if keep_old else []) + [self.public_pem]

    def service(self, template: str, **values) -> str:
        return self.service_url + self.shape.path(template, **values)

    def registration_args(self) -> dict:
        """What `lti_add_platform` needs (what docs/lti.md says to register for this shape), as
        keyword arguments of lti.tool.register_platform."""
        args = {
            "name": f"Demo LMS ({self.shape.name})",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "deployment_ids": [self.deployment_id],
            "auth_login_url": f"{self.url}/auth",
            "token_url": f"{self.url}/token",
            "jwks_url": f"{self.url}/jwks",
            # The demo runs on this machine, over plain http: only a registration marked so
            # may use either (lti.network).
            "allow_local_network": True,
        }
        if self.shape.separate_service_host:
            args["frame_origins"] = [self.service_url]
        if self.shape.token_audience:
            args["token_audience"] = self.shape.token_audience
        return args

    def command_args(self) -> list[str]:
        """The same, as `manage.py lti_add_platform` options."""
        args = self.registration_args()
        options = [
            f"--name={args['name']}",
            f"--issuer={args['issuer']}",
            f"--client-id={args['client_id']}",
            f"--deployment-id={args['deployment_ids'][0]}",
            f"--auth-login-url={args['auth_login_url']}",
            f"--token-url={args['token_url']}",
            f"--jwks-url={args['jwks_url']}",
            "--allow-local-network",
        ]
        options += [f"--frame-origin={o}" for o in args.get("frame_origins", [])]
        if args.get("token_audience"):
            options.append(f"--token-audience={args['token_audience']}")
        return options

    def add_lineitem(self, data: dict, course: str | None = None) -> dict:
        course = course or self.shape.course
        data["id"] = self.service(self.shape.lineitem, id=len(self.lineitems) + 1, course=course)
        self.lineitems[data["id"]] = data
        self.lineitem_course[data["id"]] = course
        return data

    def start_url(self, *, user="student-ada", roles=("Learner",), **spec) -> str:
        """A platform URL that starts a launch (OIDC login initiation) for this user."""
        hint = uuid.uuid4().hex
        self._hints[hint] = {"user": user, "roles": list(roles), **spec}
        return f"{self.service_url}/start?hint={hint}"

    # -- protocol steps --------------------------------------------------------------------
    def conf(self):
        conf = _Conf(platform=self)
        conf.get_registration()
        return conf

    def preflight(self, hint: str) -> tuple[str, str, dict]:
        """(method, URL, form) of the login initiation: a redirect (GET) or, as Canvas and
        Moodle do, an auto-posted form."""
        login = _Login(_Request({}), self.conf())
        login.set_lti_message_hint(hint=hint)
        url = login.initiate_login(self._hints[hint]["user"])
        if self.shape.login_method == "GET":
            return "GET", url, {}
        base, _, query = url.partition("?")
        return "POST", base, dict(parse_qsl(query))

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
        self.last_deep_link_response = jwt.decode(form["JWT"], options={"verify_signature": False})
        return items

    def route(self, path: str) -> tuple[str, str | None, str]:
        """Which service a request path is for, and in which LMS course: ("lineitems"|"members",
        None, course), or ("lineitem"|"scores"|"results", the line item's id URL, course), or
        ("", None, "")."""
        shape = self.shape
        for course in sorted(self.courses):
            if path == urlsplit(shape.path(shape.lineitems, course=course)).path:
                return "lineitems", None, course
            if path == urlsplit(shape.path(shape.memberships, course=course)).path:
                return "members", None, course
            item = urlsplit(shape.path(shape.lineitem, id="{id}", course=course))
            pattern = re.escape(item.path).replace(re.escape("{id}"), r"(?P<id>[^/]+)")
            match = re.fullmatch(pattern + r"(?:/(?P<sub>scores|results))?", path)
            if match is not None:
                url = self.service(shape.lineitem, id=match["id"], course=course)
                return match["sub"] or "lineitem", url, course
        return "", None, ""


def _page(body: str) -> bytes:
    return f"<!doctype html><meta charset=utf-8><title>Demo LMS</title>{body}".encode()


def _auto_post(url: str, fields: dict) -> bytes:
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in fields.items()
    )
    return _page(
        f'<form id="f" method="post" action="{html.escape(url)}">{inputs}'
        "<button>Continue</button></form>"
        '<script>document.getElementById("f").submit()</script>'
    )


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

        def _send(self, code, body=b"", ctype="text/html; charset=utf-8", headers=None):
            self.send_response(code)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _service(self, response, headers=None):
            data = response.result if response.code < 300 else {"error": response.message}
            if isinstance(data, dict) and "content" in data:
                data = data["content"]
            body = json.dumps({} if data is None else data).encode()
            self._send(response.code, body, response.media_type, headers)

        def do_GET(self):
            self._route(self._request())

        def do_POST(self):
            self._route(self._request())

        def do_PUT(self):
            self._route(self._request())

        def _route(self, req):
            path = req["path"]
            platform.requests.append(f"{req['method']} {self.path}")
            kind, item_url, course = platform.route(path)
            if path in platform.redirects:
                return self._send(307, headers={"Location": platform.redirects[path]})
            if (kind or path == "/token") and platform.down:
                return self._send(503, b'{"error": "down"}', "application/json")
            if path == "/":
                return self._send(200, _home(platform))
            if path == "/start":
                method, url, form = platform.preflight(req["get_data"]["hint"])
                if method == "GET":
                    return self._send(302, headers={"Location": url})
                return self._send(200, _auto_post(url, form))
            if path == "/auth":
                return self._send(200, platform.launch_form(req).encode())
            if path == "/jwks":
                return self._jwks(req)
            if path == "/token":
                return self._token(req)
            if path == "/deep_link_return":
                items = platform.deep_link_return(req["form_data"])
                titles = "".join(f"<li>{html.escape(i.get('title', ''))}</li>" for i in items)
                back = '<p><a href="/" target="_top">Back to the course page</a></p>'
                return self._send(
                    200, _page(f"<h1>Placed in the course</h1><ul>{titles}</ul>{back}")
                )
            if kind:
                try:
                    return self._services(req, kind, item_url, course)
                except jwt.PyJWTError:  # a token signed with a key this platform dropped
                    body = b'{"error": "invalid_token"}'
                    return self._send(401, body, "application/json")
            return self._send(404, _page("<h1>Not found</h1>"))

        def _services(self, req, kind, item_url, course):
            conf = platform.conf()
            if kind == "members":
                nrps = _Nrps(_Request(req), conf, platform, course=course)
                response = nrps.handle_resp(nrps.handle_get_members)
                headers = None
                if platform.roster_link is not None:
                    headers = {"Link": platform.roster_link}
                elif nrps.next_cursor and response.code == 200:
                    query = urlencode({"cursor": nrps.next_cursor})
                    headers = {"Link": f'<{nrps.nrps.context_memberships_url}?{query}>; rel="next"'}
                return self._service(response, headers)
            if kind == "lineitems":
                ags = _Ags(_Request(req), conf, platform, course=course)
                post = req["method"] == "POST"
                response = ags.handle_resp(
                    ags.handle_create_lineitem if post else ags.handle_get_lineitems
                )
                link = None if post or not platform.lineitems_link else platform.lineitems_link
                return self._service(response, {"Link": link} if link else None)
            ags = _Ags(_Request(req), conf, platform, item_url, course=course)
            handle = {
                "scores": ags.handle_update_score,
                "results": ags.handle_get_results,
                "lineitem": ags.handle_get_lineitem,
            }[kind]
            return self._service(ags.handle_resp(handle, line_item_id=item_url))

        def _jwks(self, req):
            """The key set, with the caching headers a test sets (and 304 for its ETag)."""
            platform.jwks_fetches += 1
            body = json.dumps(platform.conf().get_jwks()).encode()
            etag = f'"{len(platform.published_keys)}-{hash(body) & 0xFFFF}"'
            headers = {"ETag": etag}
            if platform.jwks_cache_control:
                headers["Cache-Control"] = platform.jwks_cache_control
            if req["headers"].get("If-None-Match") == etag:
                platform.jwks_not_modified += 1
                return self._send(304, headers=headers)
            return self._send(200, body, "application/json", headers)

        def _token(self, req):
            """lti1p3platform's grant, after checking the assertion's audience: the token URL,
            or the audience the shape names (Brightspace), as the real LMSs do."""
            assertion = req["form_data"].get("client_assertion", "")
            claims = jwt.decode(assertion, options={"verify_signature": False})
            platform.assertions.append(claims)
            wanted = platform.shape.token_audience or f"{platform.url}/token"
            audience = claims.get("aud")
            if wanted not in (audience if isinstance(audience, list) else [audience]):
                body = json.dumps({"error": "invalid_client", "aud": audience}).encode()
                return self._send(401, body, "application/json")
            token = platform.conf().get_access_token(req["form_data"])
            return self._send(200, json.dumps(token).encode(), "application/json")

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
