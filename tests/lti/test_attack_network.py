"""SSRF past lti.network: the forms an address on our own network can take (IPv6 embeddings of
IPv4, NAT64, old site-local space, IPv4 written in decimal, octal or hex), hosts written so that
two parsers disagree, user info, IDNA, and ports. No request leaves this machine: every case is
decided before a connection (see test_network.py for the connected-socket check)."""

from __future__ import annotations

import pytest

from lti import network
from lti.network import HostPolicy, is_public_address

LMS = HostPolicy(["lms.example.edu"], name="School LMS")


@pytest.mark.parametrize(
    "address",
    [
        # NAT64 (RFC 6052): on an IPv6-only server behind a NAT64 gateway (AWS, GCP) these reach
        # the IPv4 address in their last 32 bits: 10.0.0.5, loopback, cloud metadata.
        "64:ff9b::a00:5",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::a00:5",  # the local-use NAT64 prefix (RFC 8215)
        # 6to4 and the old IPv4-compatible form carry an IPv4 address too.
        "2002:a00:5::1",
        "2002:7f00:1::",
        "::7f00:1",
        "::a00:5",
        "fec0::1",  # site-local (deprecated, still routed inside some sites)
        "192.0.0.8",  # IETF protocol assignments, not globally reachable
    ],
)
def test_an_address_that_leads_into_our_own_network_is_not_public(address):
    assert not is_public_address(address)


@pytest.mark.parametrize(
    "address", ["64:ff9b::5db8:d822", "2002:5db8:d822::1", "2606:4700::6810:84e5", "93.184.216.34"]
)
def test_the_same_forms_around_a_public_address_stay_public(address):
    assert is_public_address(address)


def test_a_registered_name_resolving_to_a_nat64_address_inside_is_refused(monkeypatch):
    monkeypatch.setattr(network, "resolve", lambda host, port: ["64:ff9b::a00:5"])
    assert "own network" in LMS.refusal("https://lms.example.edu/scores")


# -- attacks that held ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/scores",  # 127.0.0.1 in decimal
        "https://0177.0.0.1/scores",  # octal
        "https://0x7f.0.0.1/scores",  # hex
        "https://127.1/scores",
        "https://[::ffff:127.0.0.1]/scores",
        "https://[0:0:0:0:0:ffff:7f00:1]/scores",
        "https://[fe80::1%25eth0]/scores",
        "https://lms.example.edu@169.254.169.254/latest/meta-data/",
        "https://lms.example.edu.evil.example/scores",
        "https://evil.example/lms.example.edu/scores",
        "https://evil.example?lms.example.edu",
        "https://evil.example#@lms.example.edu",
        "https://lms%2eexample.edu/scores",
        "https://ｌｍｓ.example.edu/scores",  # fullwidth letters: IDNA would fold them
    ],
)
def test_a_host_the_registration_does_not_name_is_refused_whatever_its_form(url):
    assert "does not name" in LMS.refusal(url, resolve_names=False)


def test_a_host_two_parsers_read_differently_is_judged_as_the_request_goes(monkeypatch):
    """urlsplit reads lms.example.edu; requests and urllib3 read evil.example: the session
    checks the prepared request, the one that is sent."""
    import requests

    session = network.PlatformSession(LMS)
    with pytest.raises(network.PlatformURLRefused, match="evil.example"):
        session.get("https://evil.example\\@lms.example.edu/scores")
    prepared = requests.Request("GET", "https://evil.example\\@lms.example.edu/x").prepare()
    assert network.hostname(prepared.url) == "evil.example"


def test_the_platforms_own_host_on_another_port_is_its_own(monkeypatch):
    """A platform may name any port of its own hosts: nothing of ours is reached there."""
    monkeypatch.setattr(network, "resolve", lambda host, port: ["93.184.216.34"])
    assert LMS.refusal("https://lms.example.edu:8443/scores") == ""
    assert LMS.refusal("https://LMS.Example.EDU./scores") == ""
