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
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

# Seconds for any call to a platform (token, scores, line items, roster, key set).
PLATFORM_TIMEOUT = 10
# A platform redirecting a service call more than this is broken or hostile.
MAX_REDIRECTS = 3


class PlatformURLRefused(requests.RequestException):
    """A URL this site will not call for this platform; the message says why, for an admin."""


def hostname(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def is_public_address(address: str) -> bool:
    """Whether an IP address is on the public internet (not loopback, private, link-local,
    shared, reserved or unspecified); an IPv4 address mapped into IPv6 is judged as IPv4."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
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


class _PeerRefused(Exception):
    """Raised inside urllib3, which would retry (and hide) an OSError such as
    PlatformURLRefused; PlatformSession.send turns it into one."""


class _PeerCheck:
    """On a connected socket: refuse an address on our own network (DNS rebinding)."""

    def _new_conn(self):
        sock = super()._new_conn()
        if self.proxy:  # the operator's outbound proxy resolves and connects for us
            return sock
        address = sock.getpeername()[0]
        if not is_public_address(address):
            sock.close()
            raise _PeerRefused(
                f"{self.host} resolved to {address}, an address on this site's own network, "
                "when connecting; the site never sends a platform's token there."
            )
        return sock


class _CheckedHTTPConnection(_PeerCheck, HTTPConnection):
    pass


class _CheckedHTTPSConnection(_PeerCheck, HTTPSConnection):
    pass


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class _PublicOnlyAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _CheckedHTTPPool,
            "https": _CheckedHTTPSPool,
        }


class PlatformSession(requests.Session):
    """requests for one platform: every request (and redirect) checked against its policy,
    with a timeout (PyLTI1p3 passes none, and a platform that never answers must not hold a
    worker)."""

    def __init__(self, policy: HostPolicy):
        super().__init__()
        self.policy = policy
        self.max_redirects = MAX_REDIRECTS
        self.headers["User-Agent"] = "HardwareReality-LTI"
        if not policy.allow_local:
            adapter = _PublicOnlyAdapter()
            self.mount("http://", adapter)
            self.mount("https://", adapter)

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
