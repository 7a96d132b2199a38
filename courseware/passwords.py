"""Passwords without a shell: a one-time, expiring set-password link an instructor issues for a
student of their offering, and the limits around it and around password reset by e-mail.

A link's token is 256 random bits; only its SHA-256 is stored, and the link is shown once, in
the response to the instructor who made it. It works once, for `PASSWORD_LINK_HOURS`, and a
newer link for the same student replaces it. Whose account an instructor may hand a link for
is `roster.managed_refusal`'s rule (never a staff account, a site-wide role, or a student of an
offering they do not teach), checked when the link is made and again when it is used.

Limits (the site's cache, so per process unless REDIS_URL is set): an instructor makes at most
`ISSUE_LIMIT` links an hour; an address that tries `BAD_TOKEN_LIMIT` unusable links in
`WINDOW_SECONDS` is refused any link for that long (a guessed token is refused before it is
looked at); a reset e-mail is asked for at most `RESET_LIMIT` times a window per address and
per e-mail address. Every link issued, refused, used or tried in vain leaves an `AuditEvent`.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from .models import AuditAction, Offering, PasswordLink
from .roster import audit, managed_refusal

ISSUE_LIMIT = 60
BAD_TOKEN_LIMIT = 10
RESET_LIMIT = 5
WINDOW_SECONDS = 15 * 60
TOKEN_BYTES = 32


class LinkRefused(Exception):
    """A link that cannot be used (unknown, used, replaced, expired, or tried too often from
    this address); `message` is a sentence for the person holding it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _count(key: str, window: int) -> int:
    """Add one to a counter that lasts `window` seconds from its first use; its new value."""
    cache.add(key, 0, window)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, window)
        return 1


def _over(key: str, limit: int) -> bool:
    return (cache.get(key) or 0) >= limit


# ---------------------------------------------------------------- issuing


def issue_link(*, offering: Offering, student, by, address=None) -> str:
    """A new set-password link's token for `student` (replacing their unused ones); raises
    ValidationError (and records the refusal) when `by` may not manage the account."""
    refusal = managed_refusal(offering=offering, account=student, by=by)
    if refusal is not None:
        audit(
            action=AuditAction.PASSWORD_LINK_REFUSED,
            offering=offering,
            actor=by,
            subject=student,
            detail=refusal,
            address=address,
        )
        raise ValidationError(refusal)
    key = f"password-links:issued:{by.pk}"
    if _over(key, ISSUE_LIMIT):
        raise ValidationError(
            f"You have made {ISSUE_LIMIT} set-password links in the last hour; wait a while."
        )
    _count(key, 60 * 60)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = timezone.now()
    with transaction.atomic():
        PasswordLink.objects.filter(user=student, used_at=None, revoked_at=None).update(
            revoked_at=now
        )
        PasswordLink.objects.create(
            user=student,
            offering=offering,
            token_hash=token_hash(token),
            created_by=by,
            expires_at=now + timedelta(hours=settings.PASSWORD_LINK_HOURS),
        )
        audit(
            action=AuditAction.PASSWORD_LINK_ISSUED,
            offering=offering,
            actor=by,
            subject=student,
            detail=f"valid for {settings.PASSWORD_LINK_HOURS} hours",
            address=address,
        )
    return token


# ---------------------------------------------------------------- using


UNUSABLE = (
    "This link cannot be used: it has expired, it was used already, or a newer link replaced "
    "it. Ask your instructor for a new one."
)
TOO_MANY = (
    "Too many unusable links were tried from your address. Wait 15 minutes, then open your "
    "link again."
)


def _bad(address, detail: str) -> LinkRefused:
    count = _count(f"password-links:bad:{address}", WINDOW_SECONDS)
    if count <= BAD_TOKEN_LIMIT:  # past the limit the attempts are not recorded one by one
        audit(action=AuditAction.PASSWORD_LINK_BAD, detail=detail, address=address)
    return LinkRefused(UNUSABLE)


def usable_link(token: str, *, address=None) -> PasswordLink:
    """The link `token` opens, if it can be used now from `address`; else LinkRefused."""
    if _over(f"password-links:bad:{address}", BAD_TOKEN_LIMIT):
        raise LinkRefused(TOO_MANY)
    if not token or len(token) > 100:
        raise _bad(address, "a malformed token")
    link = (
        PasswordLink.objects.select_related("user", "offering", "created_by")
        .filter(token_hash=token_hash(token))
        .first()
    )
    if link is None:
        raise _bad(address, "an unknown token")
    if link.used_at or link.revoked_at or link.expires_at <= timezone.now():
        state = "used" if link.used_at else "replaced" if link.revoked_at else "expired"
        raise _bad(address, f"a {state} link of {link.user.username}")
    issuer = link.created_by
    if issuer is None or managed_refusal(offering=link.offering, account=link.user, by=issuer):
        # The student became staff, left the offering, or the issuer no longer teaches it.
        raise _bad(address, f"a link of {link.user.username} its issuer may no longer give")
    return link


def set_password_through(*, link: PasswordLink, password: str, address=None) -> None:
    """Set the password the link's student chose, and spend the link (once, even if two
    requests race)."""
    with transaction.atomic():
        spent = PasswordLink.objects.filter(
            pk=link.pk, used_at=None, revoked_at=None, expires_at__gt=timezone.now()
        ).update(used_at=timezone.now())
        if not spent:
            raise LinkRefused(UNUSABLE)
        user = link.user
        user.set_password(password)
        user.save(update_fields=["password"])
        audit(
            action=AuditAction.PASSWORD_SET,
            offering=link.offering,
            actor=user,
            subject=user,
            address=address,
        )


# ---------------------------------------------------------------- reset by e-mail


def reset_allowed(*, email: str, address) -> bool:
    """Whether another reset e-mail may be asked for now (and count this one)."""
    keys = (f"password-reset:address:{address}", f"password-reset:email:{email.lower()}")
    if any(_over(key, RESET_LIMIT) for key in keys):
        return False
    for key in keys:
        _count(key, 60 * 60)
    return True
