"""JSON from a platform nested deeper than any LTI service nests is refused before it is parsed.
Parsing 100,000 brackets recursed to Python's limit; the RecursionError was caught, but anything
the garbage collector finalised down there failed in its turn (a CI run once reported such a
finalizer). A student's display name full of brackets must still refuse nothing."""

from __future__ import annotations

import json

import pytest

from lti import keyset, network, roster
from lti.network import MAX_JSON_DEPTH, HostPolicy, PlatformSession, nested_too_deep
from tests.lti.hostile_server import HostileServer

DEEP = b'{"members": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def nest(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


@pytest.mark.parametrize(
    "body, deep",
    [
        (DEEP, True),
        (nest(MAX_JSON_DEPTH), False),
        (nest(2 * MAX_JSON_DEPTH + 1), True),
        (b'{"a": [{"b": {"c": [1, 2, {"d": []}]}}]}', False),
        # brackets inside strings are text, escaped quotes included
        (b'{"members": [{"name": "' + b"[" * 200 + b'"}]}', False),
        (b'{"members": [{"name": "\\"' + b"{" * 200 + b'"}]}', False),
        # unbalanced: left to the parser, which refuses it without recursing
        (b"[[[" + b"]" * 500, False),
        (b"", False),
    ],
)
def test_depth_is_found_without_parsing(body, deep):
    assert nested_too_deep(body) is deep


def test_a_roster_nested_too_deep_is_refused_before_json_reads_it(monkeypatch):
    parsed = []
    monkeypatch.setattr(roster.json, "loads", lambda body: parsed.append(body) or {})
    with HostileServer() as server:
        server.answers["/members"] = (200, DEEP)
        session = PlatformSession(HostPolicy(["127.0.0.1"], allow_local=True))
        with pytest.raises(roster.RosterError, match="not a membership container"):
            roster._page(session, "t", server.url + "/members", deadline=1e12)
    assert parsed == []


def test_a_key_set_nested_too_deep_is_refused_before_json_reads_it(monkeypatch):
    parsed = []
    monkeypatch.setattr(keyset.json, "loads", lambda body: parsed.append(body) or {})
    with HostileServer() as server:
        server.answers["/jwks"] = (200, DEEP.replace(b"members", b"keys"))
        session = PlatformSession(HostPolicy(["127.0.0.1"], allow_local=True))
        with session.get(server.url + "/jwks", stream=True) as response:
            with pytest.raises(keyset.Refused):
                keyset._read(response, server.url + "/jwks")
    assert parsed == []


def test_an_answer_read_whole_is_refused_when_nested_too_deep():
    """Tokens, scores and line items are read whole by the session and parsed by PyLTI1p3:
    the session refuses the answer, an error every caller already turns into a message."""
    with HostileServer() as server:
        server.answers["/token"] = (200, DEEP.replace(b"members", b"access_token"))
        server.answers["/fine"] = (200, {"access_token": "t", "expires_in": 3600})
        session = PlatformSession(HostPolicy(["127.0.0.1"], allow_local=True))
        with pytest.raises(network.AnswerTooDeep, match="nested deeper than"):
            session.post(server.url + "/token")
        assert json.loads(session.post(server.url + "/fine").content)["access_token"] == "t"
