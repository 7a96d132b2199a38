"""A small browser for load runs: one keep-alive connection, cookies, forms and CSRF tokens.

Plain `http.client` (no dependency) against a server on loopback; redirects are returned, not
followed, so every request is timed and counted on its own.  Forms are found with regular
expressions over the site's own markup, which is enough for the pages it is pointed at.
"""

from __future__ import annotations

import html
import http.client
import re
import socket
import time
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


@dataclass
class Browser:
    port: int
    timeout: float = 30.0
    cookies: dict[str, str] = field(default_factory=dict)
    _conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        return self._conn

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
            conn = self._connection()
            try:
                conn.request(method, path, body=body, headers=sent)
                response = conn.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A keep-alive connection the server closed while idle: a browser reconnects.
                self.close()
                if not retry or method != "GET":
                    raise
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
