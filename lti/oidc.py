"""The two requests of an LTI 1.3 launch: the OIDC login, and the signed launch that answers it.

The login records its state and the nonce bound to it in the database (`LoginState`), and sets
a cookie naming the state in the browser that started it. The launch is accepted only when the
state is one we issued, unused, less than STATE_MINUTES old, came back in that browser, for the
same registration, with a token whose nonce is that state's own. So any worker or server can
take either request, and neither a nonce nor a state is worth anything apart from the other.

The token itself is checked with PyJWT (signature with the platform's key from lti.keyset;
`exp`, `iat`, `nonce` required; audience, issuer, `azp`; a CLOCK_LEEWAY on times), then its LTI
claims with lti.claims. `ToolMessageLaunch` keeps PyLTI1p3's MessageLaunch interface, which
django-lti's `LtiLaunch` and the rest of the app read the launch through.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

import jwt
from django.db.models import Q
from django.utils import timezone
from lti_tool.models import LtiRegistration
from pylti1p3.contrib.django import DjangoMessageLaunch

from lti.claims import DEPLOYMENT_ID, check_message, shown
from lti.keyset import platform_key
from lti.models import LoginState
from lti.network import policy_for
from lti.refusals import CLOCK_LEEWAY, STATE_MINUTES, Refused

COOKIE_PREFIX = "lti"
# Over HTTPS the cookie's name begins "__Host-": a browser takes such a cookie only from this
# very host, over HTTPS, for the whole site, so another host of the school's domain cannot plant
# one naming a state it began (login CSRF: the victim would launch into that state's identity).
HOST_ONLY = "__Host-"


def cookie_name(request, state: str) -> str:
    """The state's cookie: one per login (two links launched at once each keep their own),
    named by a digest of the state, and short. A browser keeps about 180 cookies for a site; at
    26 bytes each they stay far below the 8 KB of Cookie header gunicorn and proxies take, so a
    page that makes a browser begin logins by the hundred cannot lock it out of the site."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(state.encode()).digest()[:9]).decode()
    return (HOST_ONLY if request.is_secure() else "") + COOKIE_PREFIX + digest


# Used login states older than this are deleted at the next login.
STATE_KEPT = timedelta(days=1)


def _registration_for_login(issuer: str, client_id: str) -> LtiRegistration:
    registrations = LtiRegistration.objects.active().filter(issuer=issuer)
    if client_id:
        registrations = registrations.filter(client_id=client_id)
    found = list(registrations[:2])
    if len(found) != 1:
        why = "none" if not found else "several; the LMS must send client_id"
        raise Refused(
            "login-unknown",
            claim="iss",
            detail=f"issuer {shown(issuer)}, client id {shown(client_id)}: {why} registered",
        )
    return found[0]


def begin_login(request, params, *, launch_url: str):
    """Validate a login initiation; (redirect URL to the platform, state) or Refused."""
    issuer, login_hint = params.get("iss", ""), params.get("login_hint", "")
    if not issuer or not login_hint:
        raise Refused("login-params", claim="iss" if not issuer else "login_hint", detail="missing")
    registration = _registration_for_login(issuer, params.get("client_id", ""))
    now = timezone.now()
    # Used states are kept a day (a replay is then told "already used"); unused ones only
    # until they could no longer be answered, so logins nobody finishes do not pile up.
    stale = now - timedelta(minutes=2 * STATE_MINUTES)
    LoginState.objects.filter(
        Q(created_at__lt=now - STATE_KEPT) | Q(used_at__isnull=True, created_at__lt=stale)
    ).delete()
    state = LoginState.objects.create(
        state="state-" + secrets.token_urlsafe(24),
        nonce=secrets.token_urlsafe(32),
        registration=registration,
        created_at=now,
    )
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": registration.client_id,
        # Always our own launch URL, never the target_link_uri we were sent: no open redirect.
        "redirect_uri": launch_url,
        "state": state.state,
        "nonce": state.nonce,
        "login_hint": login_hint,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in registration.auth_url else "?"
    return registration.auth_url + separator + urlencode(query), state.state


def set_state_cookie(request, response, state: str) -> None:
    """The cookie that ties the state to this browser (`cookie_name`: its name is the proof);
    inside an LMS frame over HTTPS it must be SameSite=None; Secure to come back with the
    platform's cross-site form post."""
    secure = request.is_secure()
    response.set_cookie(
        cookie_name(request, state),
        "1",
        max_age=STATE_MINUTES * 60,
        secure=secure,
        httponly=True,
        samesite="None" if secure else "Lax",
    )


def clear_state_cookie(request, response, state: str) -> None:
    secure = request.is_secure()
    response.delete_cookie(cookie_name(request, state), samesite="None" if secure else "Lax")


def _claim_of(error: jwt.PyJWTError) -> str:
    """The claim a PyJWT error is about: a time that is not a number ("Expiration Time claim
    (exp) must be an integer."), a subject or issuer that is not a string; else the token."""
    if isinstance(error, jwt.exceptions.InvalidSubjectError):
        return "sub"
    if isinstance(error, jwt.InvalidIssuerError):
        return "iss"
    for claim in ("exp", "nbf", "iat"):
        if f"({claim})" in str(error):
            return claim
    return "id_token"


class ToolMessageLaunch(DjangoMessageLaunch):
    """PyLTI1p3's message launch, validated by this module instead of by PyLTI1p3."""

    def __init__(self, request, tool_config):
        super().__init__(request, tool_config)
        self._django_request = request
        self.login_state: LoginState | None = None

    def validate(self):
        if self._restored:
            raise Refused("token-format", detail="a restored launch cannot be validated")
        self._validated = True
        try:
            state = self._check_state()
            header, unverified = self._read_token()
            client_id = self._client_id(unverified)
            registration = self._check_registration(unverified, client_id, state)
            body = self._check_signature(header, registration, client_id)
            if body.get("nonce") != state.nonce:
                raise Refused("nonce", claim="nonce", detail=f"state {state.state[:16]}…")
            self._check_deployment(body, client_id)
            check_message(
                body,
                tool_host=urlsplit("//" + self._django_request.get_host()).hostname or "",
                policy=policy_for(registration),
            )
            self._consume(state)
        except Exception:
            self._validated = False
            raise
        return self

    # -- the steps ----------------------------------------------------------------------
    def _check_state(self) -> LoginState:
        request = self._django_request
        value = request.POST.get("state", "")
        if not value:
            raise Refused("state-missing", claim="state", detail="no state parameter")
        state = LoginState.objects.filter(state=value[:64]).first()
        if state is None:
            raise Refused("state-unknown", claim="state", detail=f"state {shown(value[:24])}")
        if state.used_at is not None:
            raise Refused("state-used", claim="state", detail="state already used", status=403)
        if state.created_at < timezone.now() - timedelta(minutes=STATE_MINUTES):
            raise Refused("state-unknown", claim="state", detail="state expired")
        if cookie_name(request, state.state) not in request.COOKIES:
            raise Refused("state-cookie", claim="state", detail="no matching state cookie")
        self.login_state = state
        return state

    def _read_token(self) -> tuple[dict, dict]:
        token = self._django_request.POST.get("id_token", "")
        if not token:
            raise Refused("token-format", claim="id_token", detail="no id_token parameter")
        try:
            header = jwt.get_unverified_header(token)
            body = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as error:
            raise Refused("token-format", claim="id_token", detail=str(error)[:200]) from None
        self._jwt = {"header": header, "body": body}
        return header, body

    def _client_id(self, body: dict) -> str:
        """Our client id from aud (a string, or an array containing it) and azp: with several
        audiences, azp is REQUIRED and names the client (OIDC Core 2, 3.1.3.7)."""
        aud, azp = body.get("aud"), body.get("azp")
        if isinstance(aud, str) and aud:
            return aud  # an azp naming another client is refused once the token verifies
        if isinstance(aud, list) and aud and all(isinstance(a, str) for a in aud):
            if isinstance(azp, str) and azp:
                return azp
            if len(aud) == 1:
                return aud[0]
            raise Refused("azp-required", claim="azp", detail=f"aud {shown(aud)}")
        raise Refused("claim-missing", claim="aud", detail=f"aud {shown(aud)}")

    def _check_registration(self, body: dict, client_id: str, state: LoginState):
        issuer = body.get("iss")
        if not isinstance(issuer, str) or not issuer:
            raise Refused("claim-missing", claim="iss", detail="iss is absent")
        found = self._tool_config.find_registration_by_params(issuer, client_id)
        registration = self._tool_config.registration
        if found is None or registration is None:
            raise Refused(
                "registration",
                claim="iss",
                detail=f"issuer {shown(issuer)}, client id {shown(client_id)}",
            )
        if registration.pk != state.registration_id:
            raise Refused(
                "state-platform",
                claim="iss",
                detail=f"state issued for registration {state.registration_id}",
            )
        self._registration = found
        return registration

    def _check_signature(self, header: dict, registration, client_id: str) -> dict:
        key = platform_key(registration, kid=header.get("kid"), alg=header.get("alg"))
        token = self._django_request.POST["id_token"]
        try:
            body = jwt.decode(
                token,
                key=key,
                algorithms=[header["alg"]],
                audience=client_id,
                issuer=registration.issuer,
                leeway=CLOCK_LEEWAY,
                options={"require": ["exp", "iat", "nonce", "aud", "iss"]},
            )
        except jwt.MissingRequiredClaimError as error:
            detail = f"{error.claim} is absent"
            raise Refused("claim-missing", claim=error.claim, detail=detail) from None
        except jwt.ExpiredSignatureError:
            raise Refused("expired", claim="exp", detail=self._times()) from None
        except jwt.ImmatureSignatureError as error:
            claim = "nbf" if "nbf" in str(error) else "iat"
            raise Refused("not-yet-valid", claim=claim, detail=self._times()) from None
        except jwt.InvalidAudienceError:
            detail = f"aud {shown(self._jwt['body'].get('aud'))}, client id {client_id!r}"
            raise Refused("audience", claim="aud", detail=detail) from None
        except jwt.InvalidSignatureError:
            detail = f"kid {header.get('kid')!r}"
            raise Refused("signature", claim="signature", detail=detail) from None
        except jwt.PyJWTError as error:
            claim = _claim_of(error)
            code = "claim-form" if claim != "id_token" else "token-format"
            raise Refused(code, claim=claim, detail=str(error)[:200]) from None
        azp = body.get("azp")
        if azp is not None and azp != client_id:
            raise Refused("azp", claim="azp", detail=f"azp {shown(azp)}, client id {client_id!r}")
        self._jwt = {"header": header, "body": body}
        return body

    def _times(self) -> str:
        body = self._jwt.get("body", {})
        now = int(timezone.now().timestamp())
        parts = [f"now {now}"]
        for claim in ("iat", "nbf", "exp"):
            if isinstance(body.get(claim), (int, float)):
                parts.append(f"{claim} {int(body[claim])} ({int(body[claim]) - now:+d} s)")
        return ", ".join(parts)

    def _check_deployment(self, body: dict, client_id: str) -> None:
        deployment_id = body.get(DEPLOYMENT_ID)
        if not isinstance(deployment_id, str) or not deployment_id:
            raise Refused("claim-missing", claim="deployment_id", detail="deployment_id is absent")
        if len(deployment_id) > 255 or not deployment_id.isascii():  # LTI 1.3 Core 5.3.3
            detail = f"at most 255 ASCII characters, got {shown(deployment_id)}"
            raise Refused("claim-form", claim="deployment_id", detail=detail)
        found = self._tool_config.find_deployment_by_params(body["iss"], deployment_id, client_id)
        if not found:
            raise Refused(
                "deployment",
                claim="deployment_id",
                detail=f"deployment {shown(deployment_id)} of {self._tool_config.registration}",
            )

    def _consume(self, state: LoginState) -> None:
        used = LoginState.objects.filter(pk=state.pk, used_at__isnull=True).update(
            used_at=timezone.now()
        )
        if not used:  # a second post of the same launch, at the same moment
            raise Refused("state-used", claim="state", detail="state already used", status=403)
