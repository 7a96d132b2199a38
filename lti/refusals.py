"""Why a login or launch is refused, in words an LMS administrator can act on.

Every refusal has a code, the claim (or parameter) at fault, and a message. The person who
launched sees the message on the refusal page (with the claim, for the administrator they show
it to); the log gets one `LTI refused [code] claim: detail` line. docs/lti.md's
troubleshooting table is keyed by these messages' first sentences (a test keeps it complete).
"""

from __future__ import annotations

import logging
import re

from django.shortcuts import render

log = logging.getLogger("lti")

# Seconds of clock difference tolerated on iat, exp and nbf (RFC 7519 4.1.4 allows "a small
# leeway"): an LMS whose clock runs up to a minute ahead of ours, or a browser slow to post
# the launch form, still launches.
CLOCK_LEEWAY = 60
# How long a login may take to come back as a launch (the platform's sign-in step in between).
STATE_MINUTES = 10

MESSAGES = {
    # The login (OIDC initiation) and the state it leaves.
    "login-params": "The LMS started a sign-in without its issuer or login hint. "
    "Check the tool's login URL in the LMS ({detail}).",
    "login-unknown": "No LMS is registered here for this sign-in. "
    "An administrator registers it with `manage.py lti_add_platform` ({detail}).",
    "state-missing": "The launch came without the sign-in state this site sent. "
    "Open the link from the LMS again ({detail}).",
    "state-unknown": "This site has no record of the sign-in this launch answers. "
    "It expired (after {minutes} minutes) or was started elsewhere: open the link from the "
    "LMS again.",
    "state-used": "This launch was already used. Go back to the LMS and open the link again.",
    "state-cookie": "Your browser did not send back the cookie this site set when the launch "
    "began. Browsers that block third-party cookies in the LMS's frame do this: open the link "
    "again, and if it keeps failing, ask the instructor to set the link to open in a new window.",
    "state-platform": "The launch comes from another platform than the sign-in it answers. "
    "Open the link from the LMS again ({detail}).",
    # The token and its signature.
    "token-format": "The LMS sent no readable launch token. "
    "The id_token is missing or is not a signed JWT ({detail}).",
    "registration": "No LMS is registered here with this issuer and client id. "
    "An administrator registers it with `manage.py lti_add_platform` ({detail}).",
    "azp-required": "The launch names several audiences but no authorized party. "
    "LTI 1.3 requires 'azp' when 'aud' has several values ({detail}).",
    "azp": "The launch was issued to another client. "
    "Its authorized party ('azp') is not this site's client id ({detail}).",
    "audience": "The launch is addressed to another tool. "
    "Its audience ('aud') does not include this site's client id ({detail}).",
    "algorithm": "The launch is signed with an algorithm this site does not accept. "
    "LTI 1.3 platforms sign with RS256 ({detail}).",
    "kid-missing": "The launch's signature names no key. "
    "The token header has no 'kid', which this site needs to pick the LMS's key.",
    "kid-unknown": "The launch is signed with a key the LMS does not publish. "
    "Its key id is not in the LMS's key set even after fetching it again; check the key set "
    "URL registered here ({detail}).",
    "keyset": "This site could not read the LMS's public keys. "
    "Check the key set (JWKS) URL registered here and that the LMS serves it ({detail}).",
    "signature": "The launch's signature does not verify. "
    "It was changed on the way or signed with another key ({detail}).",
    # The claims every launch must carry.
    "claim-missing": "The launch lacks a claim LTI 1.3 requires. "
    "The LMS must send '{claim}'; tell its administrator ({detail}).",
    "expired": "The launch has expired. "
    "Its 'exp' passed by this site's clock, beyond the {leeway} s allowed: open the link again, "
    "and if it keeps failing compare the two servers' clocks (NTP) ({detail}).",
    "not-yet-valid": "The launch is dated in the future. "
    "The LMS's clock is ahead of this site's by more than {leeway} s: ask its administrator to "
    "set the server's time (NTP) ({detail}).",
    "nonce": "The launch's nonce is not the one this site sent. "
    "It was replayed or forged; open the link from the LMS again.",
    "deployment": "The LMS launched from a deployment that is not registered here. "
    "An administrator adds it: `manage.py lti_add_platform … --deployment-id ID` ({detail}).",
    "message-type": "This site takes resource-link and deep-linking launches only. "
    "The launch is of another kind ({detail}).",
    "version": "The launch is not LTI 1.3. Its version claim must be 1.3.0 ({detail}).",
    "claim-form": "A launch claim has the wrong form. "
    "The LMS sent '{claim}' as something LTI 1.3 does not allow ({detail}).",
    "target": "The launch is aimed at another site. "
    "Its target_link_uri is not on this site; check the tool's launch URL in the LMS "
    "({detail}).",
    "return-url": "The deep-linking request has no usable return URL. "
    "The LMS must send deep_link_return_url, an http(s) address to send the chosen content "
    "back to ({detail}).",
    "placement": "The LMS cannot place this site's content here. "
    "The deep-linking request does not accept LTI resource links ({detail}).",
    "service-url": "The LMS named a grade or roster service this site will not call. {detail}",
}


# Characters that would end a log line (or drive a terminal) if a platform's text held them.
CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def printable(text) -> str:
    """Text for one log line: control characters written as their escapes, so nothing a
    platform sends (a URL, an error body) can start a line of its own."""
    return CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))


class Refused(Exception):
    """A refused login or launch: a code from MESSAGES, the claim at fault, the detail."""

    def __init__(self, code: str, *, claim: str = "", detail: str = "", status: int = 400):
        self.code, self.claim, self.detail, self.status = code, claim, detail, status
        self.message = MESSAGES[code].format(
            claim=claim,
            detail=detail,
            leeway=CLOCK_LEEWAY,
            minutes=STATE_MINUTES,
        )
        super().__init__(self.message)

    @property
    def headline(self) -> str:
        """The message's first sentence (the troubleshooting table's key)."""
        return self.message.split(". ", 1)[0].rstrip(".") + "."


def refusal_page(request, refusal: Refused):
    log.warning(
        "LTI refused [%s] %s: %s",
        refusal.code,
        printable(refusal.claim or "-"),
        printable(refusal.detail),
    )
    from lti.middleware import framed_by_platforms

    response = render(
        request,
        "lti/refused.html",
        {
            "message": refusal.message,
            "message_parts": refusal.message.split("`"),
            "claim": refusal.claim,
            "code": refusal.code,
        },
        status=refusal.status,
    )
    return framed_by_platforms(response)
