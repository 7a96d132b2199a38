"""A small browser for load runs: one keep-alive connection, cookies, forms and CSRF tokens.

A connection idle longer than the servers' keep-alive, or already closed by the server, is
replaced before a request is written; a POST is retried only when its connection failed before
anything was written (the server provably never saw it), a GET also after.

Plain `http.client` (no dependency) against a server on loopback; redirects are returned, not
followed, so every request is timed and counted on its own.  Forms are found with regular
expressions over the site's own markup, which is enough for the pages it is pointed at.
"""

from __future__ import annotations

import html
import http.client
import re
import select
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.S)
ATTR = re.compile(r'([a-zA-Z_:-]+)="([^"]*)"')
INPUT = re.compile(r"<input\b([^>]*)>", re.S)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str
    seconds: float

    @property
    def location(self) -> str:
        return self.headers.get("location", "")


@dataclass
class Form:
    action: str
    fields: dict[str, str]
    choices: list[str]  # values of radio/checkbox inputs named "answer"
    text_answer: bool  # a text input named "answer"


def attributes(tag: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in ATTR.findall(tag)}


def forms(page: str) -> list[Form]:
    found = []
    for head, inner in FORM.findall(page):
        attrs = attributes(head)
        fields, choices, text = {}, [], False
        for tag in INPUT.findall(inner):
            a = attributes(tag)
            name, kind = a.get("name"), a.get("type", "text")
            if not name:
                continue
            if name == "answer" and kind in ("radio", "checkbox"):
                choices.append(a.get("value", ""))
            elif name == "answer":
                text = True
            else:
                fields[name] = a.get("value", "")
        found.append(Form(attrs.get("action", ""), fields, choices, text))
    return found


# The bench's servers close a keep-alive connection idle for 10 s (gunicorn --keep-alive 10):
# one idle longer than this is replaced before a request is written on it, as a browser does,
# rather than raced against the server closing it.
IDLE_REUSE_S = 8.0


def closed_by_peer(sock) -> bool:
    """Whether the server has closed (or reset) an idle connection: it is readable with no
    request outstanding, which on a keep-alive connection can only be the end of it."""
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


@dataclass
class Browser:
    port: int
    timeout: float = 30.0
    cookies: dict[str, str] = field(default_factory=dict)
    _conn: http.client.HTTPConnection | None = None
    # How a connection is made (a test passes a fake one).
    opener: Callable[..., http.client.HTTPConnection] = http.client.HTTPConnection
    _idle_since: float = 0.0

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = self.opener("127.0.0.1", self.port, timeout=self.timeout)
        return self._conn

    def _ready(self) -> http.client.HTTPConnection:
        """A connected connection the server has not closed, made now if need be. Nothing of
        the request is written yet, so a failure here is safe to retry for any method."""
        conn = self._conn
        if conn is not None and (
            time.monotonic() - self._idle_since > IDLE_REUSE_S or closed_by_peer(conn.sock)
        ):
            self.close()
        conn = self._connection()
        if conn.sock is None:
            conn.connect()
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: bytes | None = None, headers=None) -> Reply:
        sent = {"Host": "127.0.0.1", "User-Agent": "bench-browser"}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        sent.update(headers or {})
        started = time.perf_counter()
        for retry in (True, False):
            try:
                conn = self._ready()
            except TimeoutError:
                self.close()
                raise
            except OSError:
                # The connection failed before any byte of the request was written: the server
                # never saw it, so even a POST is sent once more on a new connection.
                self.close()
                if not retry:
                    raise
                continue
            try:
                conn.request(method, path, body=body, headers=sent)
                response = conn.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # Failed once the request was being written: the server may have taken it, so
                # only a GET (which changes nothing) is sent again; a POST's failure is reported.
                self.close()
                if not retry or method != "GET":
                    raise
        self._idle_since = time.monotonic()
        elapsed = time.perf_counter() - started
        reply_headers = {k.lower(): v for k, v in response.getheaders()}
        for key, value in response.getheaders():
            if key.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        if reply_headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(response.status, reply_headers, data.decode("utf-8", "replace"), elapsed)

    def get(self, path: str, headers=None) -> Reply:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, fields, headers=None) -> Reply:
        body = urlencode(fields, doseq=True).encode()
        merged = {"Referer": f"http://127.0.0.1:{self.port}{path}", **(headers or {})}
        return self.request("POST", path, body=body, headers=merged)

    def login(self, username: str, password: str) -> tuple[Reply, Reply]:
        page = self.get("/accounts/login/")
        token = CSRF.search(page.body)
        fields = {
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": token.group(1) if token else "",
        }
        return page, self.post("/accounts/login/", fields)


def half_body_drop(port: int, path: str, cookies: dict[str, str], length: int = 4000) -> None:
    """Send headers announcing `length` bytes and half of them, then close the socket."""
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {length}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(head.encode() + b"answer=" + b"1" * (length // 2))
        s.shutdown(socket.SHUT_RDWR)
