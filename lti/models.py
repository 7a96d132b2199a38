"""What the LTI app adds to django-lti's records (registrations, deployments, users, contexts).

django-lti (`lti_tool`) keeps the platform registrations, the tool's key pairs, and the users,
contexts and resource links that launches describe. This app adds what our site needs beside
them: which origins may frame the site for a platform, the nonces already used (replay), which
offering a context maps to (and the offering a new context is copied from), each placed quiz's
line item, and each student's grade sync.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import models


class PlatformFraming(models.Model):
    """Where a platform lives: the origins whose pages may frame our site after a launch from
    it, and the hosts its grade and roster services may be on (lti.network).

    The issuer is not always the page's origin (Canvas: issuer canvas.instructure.com, pages on
    the school's own domain), so the administrator lists them; registration fills in the
    issuer's and the login URL's origins. A service URL may be on the host of the issuer, the
    login, token or key-set URL, a frame origin, or a host listed here.
    """

    registration = models.OneToOneField(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="framing"
    )
    frame_origins = models.TextField(
        blank=True, help_text="One origin per line, e.g. https://school.instructure.com"
    )
    service_hosts = models.TextField(
        blank=True,
        help_text="Further hosts of the LMS's grade and roster services, one per line (its "
        "issuer, login, token, key-set and frame-origin hosts are allowed already).",
    )
    allow_local_network = models.BooleanField(
        default=False,
        help_text="Only for a demo or test LMS: let its URLs use plain http and addresses on "
        "this machine's or this site's own network (loopback, private, link-local).",
    )

    def __str__(self) -> str:
        return f"framing for {self.registration}"

    @property
    def origins(self) -> list[str]:
        return [
            line.strip().rstrip("/") for line in self.frame_origins.splitlines() if line.strip()
        ]

    @property
    def extra_service_hosts(self) -> list[str]:
        """The listed hosts, lowercased (a line may be a bare host or a URL)."""
        hosts = []
        for line in self.service_hosts.splitlines():
            line = line.strip()
            if line:
                host = urlsplit(line if "//" in line else f"//{line}").hostname or ""
                hosts.append(host.lower().rstrip("."))
        return [h for h in hosts if h]


class UsedNonce(models.Model):
    """A launch's nonce, kept so the same id_token is refused a second time (replay)."""

    issuer = models.CharField(max_length=255)
    nonce = models.CharField(max_length=255)
    used_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "nonce"], name="lti_nonce_used_once"),
        ]

    def __str__(self) -> str:
        return self.nonce


class ContextOffering(models.Model):
    """The offering an LMS context maps to. An LtiContext is one context id of one deployment
    of one registration, so this is the (registration, deployment, context id) -> offering map.
    """

    context = models.OneToOneField(
        "lti_tool.LtiContext", on_delete=models.CASCADE, related_name="offering_link"
    )
    offering = models.ForeignKey(
        "courseware.Offering", on_delete=models.CASCADE, related_name="lti_contexts"
    )

    def __str__(self) -> str:
        return f"{self.context} -> {self.offering}"


class PlatformTemplate(models.Model):
    """The offering a new LMS course of this platform is copied from (without it, the site's
    default offering)."""

    registration = models.OneToOneField(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="offering_template"
    )
    offering = models.ForeignKey(
        "courseware.Offering", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.registration} copies {self.offering or 'the default offering'}"


class QuizLineItem(models.Model):
    """The platform's gradebook column for one placement of a quiz: one per resource link, so
    the same quiz placed twice in one LMS course fills two columns. A row without a resource
    link was recorded before placements were told apart (or found by tag): the first launch of
    a link to that quiz adopts it."""

    context = models.ForeignKey(
        "lti_tool.LtiContext", on_delete=models.CASCADE, related_name="quiz_line_items"
    )
    resource_link = models.ForeignKey(
        "lti_tool.LtiResourceLink",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="quiz_line_items",
    )
    quiz = models.ForeignKey("quizzes.Quiz", on_delete=models.CASCADE, related_name="+")
    # Empty until known: the launch's own line item, or one found or created by tag.
    url = models.URLField(max_length=500, blank=True)
    lineitems_url = models.URLField(max_length=500, blank=True)
    scopes = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["resource_link", "quiz"],
                condition=models.Q(resource_link__isnull=False),
                name="one_line_item_per_placement",
            ),
            models.UniqueConstraint(
                fields=["context", "quiz"],
                condition=models.Q(resource_link__isnull=True),
                name="one_unplaced_line_item_per_quiz",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quiz} in {self.context}"


class SyncStatus(models.TextChoices):
    PENDING = "pending", "Waiting to be sent"
    SENT = "sent", "Sent"
    RETRYING = "retrying", "Failed; will retry"
    FAILED = "failed", "Failed; gave up (resend)"


class GradeSync(models.Model):
    """One student's score for one line item: what was last sent, and the state of sending."""

    line_item = models.ForeignKey(QuizLineItem, on_delete=models.CASCADE, related_name="syncs")
    lti_user = models.ForeignKey("lti_tool.LtiUser", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=20, choices=SyncStatus.choices, default=SyncStatus.PENDING)
    sent_score = models.DecimalField(max_digits=8, decimal_places=3, null=True, blank=True)
    sent_max = models.DecimalField(max_digits=8, decimal_places=3, null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Whether the score sent was provisional (AGS gradingProgress "PendingManual"): the same
    # score once staff graded the rest is sent again as "FullyGraded".
    sent_pending = models.BooleanField(default=False)
    tries = models.PositiveSmallIntegerField(default=0)
    next_try_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["line_item", "lti_user"], name="one_sync_per_student"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.line_item}: {self.status}"


class LoginState(models.Model):
    """One OIDC login in flight: its state, the nonce bound to it, the platform that began it.

    Kept in the database, so the launch that ends the login is checked by whichever worker or
    server it reaches; used once (`used_at`), so a replayed launch is refused, and the token's
    nonce must be this state's own, so a nonce is worth nothing with another login's state.
    """

    state = models.CharField(max_length=64, unique=True)
    nonce = models.CharField(max_length=64)
    registration = models.ForeignKey(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.state


class PlatformKeySet(models.Model):
    """A platform's public keys (its JWKS), kept for as long as its HTTP caching headers say
    (within bounds), so launches do not fetch them each time and every worker shares them."""

    registration = models.OneToOneField(
        "lti_tool.LtiRegistration", on_delete=models.CASCADE, related_name="platform_keys"
    )
    url = models.URLField(max_length=500)
    keys = models.JSONField(default=list)
    etag = models.CharField(max_length=255, blank=True)
    fetched_at = models.DateTimeField()
    fresh_until = models.DateTimeField()

    def __str__(self) -> str:
        return f"keys of {self.registration}"
