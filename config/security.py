"""The Content-Security-Policy and framing rules, built from settings (see docs/deploy.md).

Every script and style the site uses is a static file, and the sanitizer removes ``style``
attributes and event handlers from text, so the policy needs neither ``'unsafe-inline'`` nor
``'unsafe-eval'``: an injected ``<script>`` or ``onerror=`` does not run even if some future
path forgot the sanitizer. Framing is denied unless the operator names the origins (an LMS)
that may embed the site.
"""

from __future__ import annotations

from collections.abc import Sequence

from csp.constants import NONE, SELF


def content_security_policy(*, frame_ancestors: Sequence[str] = (), report_uri: str = "") -> dict:
    """django-csp's CONTENT_SECURITY_POLICY for the site."""
    directives = {
        "default-src": [SELF],
        "script-src": [SELF],
        # No 'unsafe-inline': MathML needs no style attributes (the sanitizer drops them), the
        # page's meters get their widths from a static script, htmx's indicator styles are off.
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": list(frame_ancestors) or [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
    if report_uri:
        directives["report-uri"] = [report_uri]
    return {"DIRECTIVES": directives}


def origins(value: str) -> list[str]:
    """'https://a.example, https://b.example' -> a list; blanks ignored."""
    return [item.strip() for item in value.split(",") if item.strip()]


# Each inner list is one lock; several entries lock independently (any one is enough).
LOCKOUT_BY = {
    # The account from that address. One address cannot guess one account's password more than
    # the limit per cool-off, and yet a classmate failing on purpose from their own machine
    # cannot lock a student out before an exam, nor can one student's typos lock out a whole
    # class behind one school address.
    "combination": [["username", "ip_address"]],
    # The account from anywhere, and the address for any account: stronger against many
    # addresses guessing one account or one address trying many, at the price of both.
    "either": ["username", "ip_address"],
}


def lockout_parameters(name: str) -> list:
    """AXES_LOCKOUT_PARAMETERS for DJANGO_LOGIN_LOCKOUT ("combination" or "either")."""
    if name not in LOCKOUT_BY:
        from django.core.exceptions import ImproperlyConfigured

        known = ", ".join(LOCKOUT_BY)
        raise ImproperlyConfigured(f"DJANGO_LOGIN_LOCKOUT must be one of: {known}")
    return LOCKOUT_BY[name]
