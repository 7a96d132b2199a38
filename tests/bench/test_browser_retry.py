"""The bench's browser never sends a POST twice unless the server provably never saw it, and
replaces an idle or server-closed keep-alive connection before writing on it."""

from __future__ import annotations

import socket

import pytest

from bench import browser as module
from bench.browser import Browser


class FakeResponse:
    status = 200

    def getheaders(self):
        return [("Content-Type", "text/html")]

    def read(self):
        return b"ok"


class FakeConnection:
    """An HTTPConnection stand-in: `fail_connect` / `fail_write` raise on the next call."""

    made: list[FakeConnection] = []

    def __init__(self, host, port, timeout=None):
        self.sock = None
        self.requests: list[tuple[str, str]] = []
        self.closed = False
        self.fail_connect: Exception | None = None
        self.fail_write: Exception | None = None
        FakeConnection.made.append(self)

    def connect(self):
        if self.fail_connect is not None:
            error, self.fail_connect = self.fail_connect, None
            raise error
        self.sock, self.peer = socket.socketpair()

    def request(self, method, path, body=None, headers=None):
        self.requests.append((method, path))
        if self.fail_write is not None:
            raise self.fail_write

    def getresponse(self):
        return FakeResponse()

    def close(self):
        self.closed = True
        if self.sock is not None:
            self.sock.close()
            self.peer.close()
            self.sock = None


@pytest.fixture
def fake(monkeypatch):
    FakeConnection.made = []
    yield Browser(8000, opener=FakeConnection)
    for conn in FakeConnection.made:
        conn.close()


def _sent(method):
    return sum(1 for c in FakeConnection.made for m, _ in c.requests if m == method)


def test_a_post_that_failed_while_being_written_is_not_sent_again(fake):
    fake.get("/")
    FakeConnection.made[0].fail_write = BrokenPipeError(32, "Broken pipe")
    with pytest.raises(BrokenPipeError):
        fake.post("/save/", {"answer": "1"})
    assert _sent("POST") == 1 and len(FakeConnection.made) == 1


def test_a_get_that_failed_while_being_written_is_sent_again_on_a_new_connection(fake):
    fake.get("/")
    FakeConnection.made[0].fail_write = ConnectionResetError()
    assert fake.get("/page/").status == 200
    assert _sent("GET") == 3 and len(FakeConnection.made) == 2


def test_a_post_whose_connection_failed_before_writing_is_sent_once_on_a_new_one(fake, monkeypatch):
    original = FakeConnection.connect

    def refuse_first(self):
        if len(FakeConnection.made) == 1:
            raise ConnectionRefusedError()
        original(self)

    monkeypatch.setattr(FakeConnection, "connect", refuse_first)
    assert fake.post("/save/", {"answer": "1"}).status == 200
    assert [len(c.requests) for c in FakeConnection.made] == [0, 1]


def test_a_connection_timeout_is_not_retried(fake, monkeypatch):
    monkeypatch.setattr(FakeConnection, "connect", lambda self: (_ for _ in ()).throw(TimeoutError))
    with pytest.raises(TimeoutError):
        fake.post("/save/", {"answer": "1"})
    assert len(FakeConnection.made) == 1 and _sent("POST") == 0


def test_a_connection_idle_longer_than_the_servers_keep_alive_is_replaced_first(fake, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    fake.get("/")
    clock[0] += module.IDLE_REUSE_S - 1
    fake.post("/save/", {"answer": "1"})
    assert len(FakeConnection.made) == 1  # recently used: kept
    clock[0] += module.IDLE_REUSE_S + 1
    fake.post("/save/", {"answer": "2"})
    first, second = FakeConnection.made
    assert first.closed and [m for m, _ in second.requests] == ["POST"]
    assert module.IDLE_REUSE_S < 10  # below gunicorn's --keep-alive 10 in the bench's servers


def test_a_connection_the_server_closed_is_replaced_before_writing(fake):
    fake.get("/")
    FakeConnection.made[0].peer.close()  # the server's end goes away while idle
    assert fake.post("/save/", {"answer": "1"}).status == 200
    first, second = FakeConnection.made
    assert [m for m, _ in first.requests] == ["GET"] and [m for m, _ in second.requests] == ["POST"]
