"""No platform can hold a worker or fill its memory: a call to a platform ends by its deadline
whatever the pace of the bytes (the socket timeout is per read, so one byte now and then kept
it alive for ever), and an answer is read only up to a bound once decompressed (a 200 KB gzip
body inflated to 200 MB in the grade worker). A hostile server on a loopback port, reached
through a session marked as a local demo (every other rule is tested in test_network.py)."""

from __future__ import annotations

import threading
import time

import pytest
import requests

from lti import network
from lti.network import HostPolicy, PlatformSession
from tests.lti.hostile_server import HostileServer, bomb


@pytest.fixture
def hostile(monkeypatch):
    # A byte every 0.05 s never trips a 2 s read timeout; the whole call has 1 s.
    monkeypatch.setattr(network, "PLATFORM_TIMEOUT", 2)
    monkeypatch.setattr(network, "PLATFORM_DEADLINE", 1)
    with HostileServer() as server:
        yield server


def finishes(call, within: float = 8) -> BaseException | object:
    """Run `call` in a thread: what it returned or raised, or fail if it is still running."""
    outcome = []

    def run():
        try:
            outcome.append(call())
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    assert outcome, f"still waiting after {within} s"
    return outcome[0]


def session() -> PlatformSession:
    return PlatformSession(HostPolicy(["127.0.0.1"], allow_local=True))


@pytest.mark.parametrize("path", ["/drip-body", "/drip-headers"])
def test_a_platform_sending_a_byte_now_and_then_is_cut_off_at_the_deadline(hostile, path):
    started = time.monotonic()
    outcome = finishes(lambda: session().post(hostile.url + path, data={"grant_type": "x"}))
    assert isinstance(outcome, requests.Timeout), outcome
    assert "took longer than 1 s" in str(outcome)
    assert time.monotonic() - started < 5


def test_the_deadline_holds_under_tls(monkeypatch):
    monkeypatch.setattr(network, "PLATFORM_TIMEOUT", 2)
    monkeypatch.setattr(network, "PLATFORM_DEADLINE", 1)
    with HostileServer(tls=True) as server:
        outcome = finishes(lambda: session().get(server.url + "/drip-body", verify=False))
    assert isinstance(outcome, requests.Timeout), outcome


def test_a_streamed_answer_is_cut_off_at_the_deadline_too(hostile):
    def read():
        with session().get(hostile.url + "/drip-body", stream=True) as response:
            return b"".join(response.iter_content(64 * 1024))

    outcome = finishes(read)
    assert isinstance(outcome, requests.RequestException), outcome


def test_a_compression_bomb_is_refused_after_the_bound_not_inflated(hostile, monkeypatch):
    import tracemalloc

    # The bound is under test here, not the deadline: tracemalloc slows the read, and on a
    # loaded machine 1 s ran out before the bound was reached.
    monkeypatch.setattr(network, "PLATFORM_DEADLINE", 30)

    bomb()  # built (64 MB of zeros, compressed) before memory is traced: only the client counts
    tracemalloc.start()
    try:
        outcome = finishes(lambda: session().get(hostile.url + "/bomb"), within=40)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(outcome, requests.RequestException), outcome
    assert f"more than {network.MAX_ANSWER_BYTES} bytes" in str(outcome)
    assert peak < 4 * network.MAX_ANSWER_BYTES


def test_a_redirect_carrying_a_compression_bomb_is_not_inflated_either(hostile, monkeypatch):
    import tracemalloc

    monkeypatch.setattr(network, "PLATFORM_DEADLINE", 30)

    bomb()  # built (64 MB of zeros, compressed) before memory is traced: only the client counts
    tracemalloc.start()
    try:

        def read():
            with session().get(hostile.url + "/redirect-bomb", stream=True) as response:
                return response.raw.read(1024, decode_content=True)

        outcome = finishes(read, within=40)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(outcome, requests.RequestException), outcome
    assert peak < 4 * network.MAX_ANSWER_BYTES


def test_an_ordinary_answer_is_read_whole_and_its_deadline_then_cancelled(hostile):
    """A normal call is untouched: its body read, its connection kept for the next call, and
    its timer gone (a late one would cut the kept connection under the next call)."""
    calls = session()
    for _ in range(3):
        assert calls.get(hostile.url + "/ok").json() == {"keys": []}
    for timer in [t for t in threading.enumerate() if t.name.startswith("lti-deadline")]:
        timer.join(1)
        assert not timer.is_alive()


@pytest.mark.django_db(transaction=True)
def test_a_roster_sent_a_byte_at_a_time_stops_at_the_rosters_own_time(hostile, monkeypatch):
    """docs/lti.md: a roster takes 60 s in all at most, whatever each call's deadline."""
    from lti_tool.models import LtiContext

    from lti import roster
    from lti.tool import ToolServiceConnector
    from tests.lti.forge import Forge

    monkeypatch.setattr(network, "PLATFORM_DEADLINE", 30)
    monkeypatch.setattr(roster, "MAX_SECONDS", 1)
    monkeypatch.setattr(ToolServiceConnector, "get_access_token", lambda self, scopes: "token")
    forge = Forge(issuer=hostile.url, allow_local_network=True)
    context = LtiContext.objects.create(
        deployment=forge.registration.deployments.get(),
        id_on_platform="course-1",
        memberships_url=hostile.url + "/drip-body",
    )
    outcome = finishes(lambda: roster.fetch_members(context))
    assert isinstance(outcome, roster.RosterError), outcome
    assert "took longer than 1 s" in str(outcome)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/drip-body", "/drip-headers", "/bomb", "/short"])
def test_a_key_set_that_drips_inflates_or_breaks_off_refuses_the_launch_in_time(hostile, path):
    """The key set is fetched inside the launch request: the launch answers, with the reason,
    by the deadline (before: held for ever, or a 500 for an answer cut short)."""
    from django.test import Client

    from lti.models import PlatformKeySet
    from tests.lti.conftest import assert_refused
    from tests.lti.forge import Forge

    forge = Forge(issuer=hostile.url, allow_local_network=True)
    PlatformKeySet.objects.all().delete()
    forge.registration.keyset_url = hostile.url + path
    forge.registration.save()
    response = finishes(lambda: forge.launch(Client()), within=5)
    assert_refused(response, "keyset", claim="jwks")
