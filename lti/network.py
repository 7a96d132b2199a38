"""Where the tool may send a platform's bearer token: only to the hosts its registration names.

Every HTTP call to a platform (access token, key set, scores, line items, roster) goes through
`PlatformSession`, which refuses, before anything is sent:

- a URL whose host the registration does not name (its issuer, login, token and key-set URLs,
  its frame origins, and any service host the administrator added);
- plain http, unless the registration is marked as a local demo (`allow_local_network`);
- an address on this site's own network: loopback, private, link-local (cloud metadata),
  shared or reserved, whether written in the URL or what its name resolves to, again unless the
  registration is a local demo.

The resolved address is checked twice: before the request, and on the connected socket itself,
so a name that resolves to a public address for the check and to a private one for the
connection (DNS rebinding) is still refused. Without that, any registered platform could make
the grade worker post its bearer token to an address inside our network (issue 33, S6).

Every call also ends by PLATFORM_DEADLINE, however slowly the platform sends (a socket timeout
is per read: a byte every few seconds kept a worker for ever), and an answer is read only up to
MAX_ANSWER_BYTES once decompressed (a 200 KB gzip body inflated to 200 MB in memory).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

# Seconds for any call to a platform (token, scores, line items, roster, key set): to connect
# and between two reads; and for the whole call, from connecting to the answer's last byte.
PLATFORM_TIMEOUT = 10
PLATFORM_DEADLINE = 30
# The most bytes of an answer read (decompressed) for a caller that does not stream it; tokens,
# scores and line-item pages are a few kilobytes.
MAX_ANSWER_BYTES = 8 * 1024 * 1024
# A platform redirecting a service call more than this is broken or hostile.
MAX_REDIRECTS = 3
# The services' JSON nests a few levels (a key set 3, a membership container 4, a score 2). An
# answer nested deeper is refused before it is parsed: parsing it recurses towards Python's
# limit, and anything the garbage collector finalises down there fails in its turn.
MAX_JSON_DEPTH = 32


class PlatformURLRefused(requests.RequestException):
    """A URL this site will not call for this platform; the message says why, for an admin."""


def hostname(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


# IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits, which a NAT64
# gateway (IPv6-only servers at AWS, GCP) connects to: RFC 6052's and RFC 8215's local one.
NAT64 = [ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48")]
# Not globally reachable, yet `is_global` in some Pythons: IETF protocol assignments.
NOT_GLOBAL = [ipaddress.ip_network("192.0.0.0/24")]


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address leads to: mapped (::ffff:a.b.c.d), IPv4-compatible
    (::a.b.c.d), NAT64, or 6to4 (2002:aabb:ccdd::)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if any(ip in network for network in NAT64) or int(ip) >> 32 == 0:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public_address(address: str) -> bool:
    """Whether an IP address is on the public internet (not loopback, private, link-local,
    site-local, shared, reserved or unspecified); an IPv6 address that carries an IPv4 one
    (mapped, compatible, NAT64, 6to4) is judged by that IPv4 address too."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.is_site_local:
            return False
        embedded = _embedded_ipv4(ip)
        if embedded is not None and not is_public_address(str(embedded)):
            return False
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
    if any(ip in network for network in NOT_GLOBAL):
        return False
    return ip.is_global and not ip.is_multicast


def resolve(host: str, port: int) -> list[str]:
    """The addresses a name resolves to (empty when it does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return [info[4][0] for info in infos]


def _literal_address(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


class HostPolicy:
    """The hosts a platform's URLs may name, and whether its local network is allowed."""

    def __init__(self, hosts, *, allow_local: bool = False, name: str = "the platform"):
        self.hosts = {h.lower().rstrip(".") for h in hosts if h}
        self.allow_local = allow_local
        self.name = name

    def refusal(self, url: str, *, resolve_names: bool = True) -> str:
        """Why the URL may not be called for this platform, or "" when it may."""
        parts = urlsplit(url or "")
        host = hostname(url or "")
        if parts.scheme not in {"http", "https"} or not host:
            return f"{url!r} is not an http(s) URL."
        if parts.scheme != "https" and not self.allow_local:
            return (
                f"{url} is plain http; {self.name} must use https (only a registration marked "
                "as a local demo may use http)."
            )
        if host not in self.hosts:
            return (
                f"{url} is on {host}, a host the registration of {self.name} does not name "
                f"({', '.join(sorted(self.hosts)) or 'none'}). If that host is really the "
                f"LMS's, add it: lti_add_platform --service-host {host}."
            )
        if self.allow_local:
            return ""
        literal = _literal_address(host)
        if literal is not None:
            addresses = [literal]
        elif resolve_names:
            addresses = resolve(host, parts.port or (443 if parts.scheme == "https" else 80))
        else:
            addresses = []
        private = [a for a in addresses if not is_public_address(a)]
        if private:
            return (
                f"{url} leads to {private[0]}, an address on this site's own network "
                "(loopback, private or link-local); the site never sends a platform's token there."
            )
        return ""

    def check(self, url: str) -> None:
        reason = self.refusal(url)
        if reason:
            raise PlatformURLRefused(reason)


def policy_for(registration) -> HostPolicy:
    """The host policy of a django-lti registration (and its PlatformFraming row, if any)."""
    from lti.models import PlatformFraming

    urls = [registration.issuer, registration.auth_url, registration.token_url]
    urls.append(registration.keyset_url)
    framing = PlatformFraming.objects.filter(registration=registration).first()
    allow_local = False
    hosts = [hostname(u) for u in urls]
    if framing is not None:
        hosts += [hostname(o) for o in framing.origins]
        hosts += framing.extra_service_hosts
        allow_local = framing.allow_local_network
    return HostPolicy(hosts, allow_local=allow_local, name=registration.name or registration.issuer)


class AnswerTooLarge(requests.RequestException):
    """An answer larger than MAX_ANSWER_BYTES once decompressed."""


class AnswerTooDeep(requests.RequestException):
    """An answer whose brackets nest deeper than MAX_JSON_DEPTH."""


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_A_BRACKET = bytes(sorted(set(range(256)) - set(b"[]{}")))


def _peels_past(text: bytes, limit: int) -> bool:
    """Keep only the brackets and peel the innermost pairs, a level or two a pass (each pass
    is two scans in C): brackets still peeling after `limit` passes nest deeper than `limit`
    (and surely deeper than 2 × `limit` levels is never needed to say so)."""
    brackets = text.translate(None, _NOT_A_BRACKET)
    for _ in range(limit):
        peeled = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if not peeled or len(peeled) == len(brackets):
            return False  # empty; or unbalanced, which the parser refuses by itself
        brackets = peeled
    return True


def nested_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text's arrays and objects nest deeper than `limit` levels, found
    without recursing. The brackets alone answer for almost every body; only a body they call
    too deep is looked at again without its strings, so that a name of forty "[" in a roster
    refuses nothing."""
    body = bytes(body)
    return _peels_past(body, limit) and _peels_past(_JSON_STRING.sub(b"", body), limit)


class _PeerRefused(Exception):
    """Raised inside urllib3, which would retry (and hide) an OSError such as
    PlatformURLRefused; PlatformSession.send turns it into one."""


class _Call:
    """One request to a platform (a redirect is another): whether its peer must be public, and
    its deadline, when every connection it used is shut, so a read waiting for the next byte
    (of the headers or of the body) ends at once."""

    def __init__(self, seconds: float, *, check_peer: bool):
        self.check_peer = check_peer
        self.seconds = seconds
        self.passed = False
        self._connections = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._pass)
        self._timer.name = "lti-deadline"
        self._timer.daemon = True
        self._timer.start()

    def watch(self, connection) -> None:
        with self._lock:
            self._connections.append(connection)

    def _pass(self) -> None:
        with self._lock:
            self.passed = True
            connections = list(self._connections)
        for connection in connections:
            shut(connection)

    def cancel(self) -> None:
        self._timer.cancel()

    def timeout(self) -> requests.Timeout:
        return requests.Timeout(f"The LMS took longer than {self.seconds:g} s to answer.")


def shut(connection) -> None:
    """End every read on the connection's socket, from another thread. The socket is the one
    it connected with: http.client lets go of `connection.sock` once an answer that closes the
    connection has begun, and reads it through a file of its own."""
    sock = getattr(connection, "connected_sock", None)
    if sock is not None:
        try:  # the plain socket's shutdown, also under TLS
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass


# The call under way in this thread: urllib3 makes its connections in the caller's thread.
_current = threading.local()


class _Guarded:
    """A connection that joins the current call (its deadline) for each request it carries,
    and, unless the call is a local demo's, refuses an address on our own network on the
    connected socket (DNS rebinding)."""

    connected_sock = None

    def request(self, *args, **kwargs):
        call = getattr(_current, "call", None)
        if call is not None:
            call.watch(self)
        return super().request(*args, **kwargs)

    def connect(self):
        super().connect()
        self.connected_sock = self.sock  # under TLS, the wrapped socket
        call = getattr(_current, "call", None)
        if call is not None and call.passed:
            shut(self)

    def _new_conn(self):
        sock = super()._new_conn()
        call = getattr(_current, "call", None)
        if (call is not None and not call.check_peer) or self.proxy:
            return sock  # a local demo; or the operator's outbound proxy connects for us
        address = sock.getpeername()[0]
        if not is_public_address(address):
            sock.close()
            raise _PeerRefused(
                f"{self.host} resolved to {address}, an address on this site's own network, "
                "when connecting; the site never sends a platform's token there."
            )
        return sock


class _GuardedHTTPConnection(_Guarded, HTTPConnection):
    pass


class _GuardedHTTPSConnection(_Guarded, HTTPSConnection):
    pass


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class _GuardedAdapter(HTTPAdapter):
    """Each request a call of its own (peer check, deadline); an answer the caller does not
    stream, or a redirect's (which requests reads whole to follow it), read here within
    MAX_ANSWER_BYTES."""

    def __init__(self, policy: HostPolicy, session: PlatformSession):
        self.policy, self.session = policy, session
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GuardedHTTPPool,
            "https": _GuardedHTTPSPool,
        }

    def send(self, request, stream=False, **kwargs):
        call = _Call(self.session.seconds_left(), check_peer=not self.policy.allow_local)
        _current.call = call
        try:
            response = super().send(request, stream=True, **kwargs)
            if stream and not response.is_redirect:
                _cancel_on_close(response, call)  # the caller reads it, within `with`
                return response
            _read_bounded(response, call)
        except BaseException:
            call.cancel()
            if call.passed:
                raise call.timeout() from None
            raise
        finally:
            _current.call = None
        call.cancel()
        return response


def _cancel_on_close(response: requests.Response, call: _Call) -> None:
    close = response.close

    def closed():
        try:
            close()
        finally:
            call.cancel()

    response.close = closed


def _read_bounded(response: requests.Response, call: _Call) -> None:
    """Read the answer into `response.content`, refusing it past MAX_ANSWER_BYTES (counted
    decompressed, as it arrives) or past the call's deadline."""
    body = bytearray()
    try:
        for chunk in response.iter_content(64 * 1024):
            body += chunk
            if len(body) > MAX_ANSWER_BYTES:
                raise AnswerTooLarge(
                    f"The LMS answered {response.url} with more than {MAX_ANSWER_BYTES} bytes."
                )
        if call.passed:  # shut at the deadline: what arrived is not the whole answer
            raise call.timeout()
        if nested_too_deep(body):
            raise AnswerTooDeep(
                f"The LMS answered {response.url} with JSON nested deeper than {MAX_JSON_DEPTH}."
            )
    except BaseException:
        response.close()
        raise
    response._content = bytes(body)


class PlatformSession(requests.Session):
    """requests for one platform: every request (and redirect) checked against its policy,
    with a timeout (PyLTI1p3 passes none, and a platform that never answers must not hold a
    worker) and a deadline (lti.network's docstring)."""

    def __init__(self, policy: HostPolicy):
        super().__init__()
        self.policy = policy
        self.max_redirects = MAX_REDIRECTS
        self.headers["User-Agent"] = "HardwareReality-LTI"
        # A caller with a budget of its own (a roster of many pages) sets when it runs out.
        self.deadline_at: float | None = None
        adapter = _GuardedAdapter(policy, self)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def seconds_left(self) -> float:
        if self.deadline_at is None:
            return PLATFORM_DEADLINE
        return max(0.0, min(PLATFORM_DEADLINE, self.deadline_at - time.monotonic()))

    def request(self, method, url, **kwargs):
        kwargs.setdefault("timeout", PLATFORM_TIMEOUT)
        return super().request(method, url, **kwargs)

    def send(self, request, **kwargs):
        self.policy.check(request.url)
        kwargs.setdefault("timeout", PLATFORM_TIMEOUT)
        try:
            return super().send(request, **kwargs)
        except _PeerRefused as refusal:
            raise PlatformURLRefused(str(refusal)) from None


def session_for(registration) -> PlatformSession:
    return PlatformSession(policy_for(registration))
