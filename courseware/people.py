"""The people side of an offering beyond enrolment: groups of students (sections, lab groups),
each account's own preferences (its time zone), one-time set-password links, and the audit
trail of what staff did to accounts and rosters.

Imported by `courseware.models` (so Django finds these models there); the writes are in
`courseware.roster` and `courseware.passwords`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .models import Offering, validate_time_zone


class GroupKind(models.TextChoices):
    SECTION = "section", "Section"
    LAB = "lab", "Lab group"
    OTHER = "other", "Group"


class StudentGroup(models.Model):
    """A named set of an offering's students: filters the gradebook and analytics, and is the
    target of group extensions and accommodations."""

    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=20, choices=GroupKind.choices, default=GroupKind.SECTION)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="GroupMembership", related_name="student_groups"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["offering", "kind", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["offering", "name"], name="one_group_name_per_offering"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display().lower()})"


class GroupMembership(models.Model):
    group = models.ForeignKey(StudentGroup, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_memberships"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["group", "user"], name="one_membership_per_group"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.group}"


class AccountPreferences(models.Model):
    """What a person chose for their own account. An empty time zone means "not known yet":
    pages then show the offering's zone until the browser reports its own."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    time_zone = models.CharField(max_length=64, blank=True, validators=[validate_time_zone])
    # True: the zone was detected by the browser and follows it (a laptop that travels); False:
    # the person chose it on their account page, and the browser never changes it.
    time_zone_detected = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "account preferences"

    def __str__(self) -> str:
        return f"preferences of {self.user}"


class PasswordLink(models.Model):
    """A one-time, expiring link an instructor issued for a student to set a password. Only the
    SHA-256 of its token is kept: the link is shown once, to the instructor who made it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="password_links"
    )
    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="+")
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # Set when the password was set through it, or when a newer link replaced it.
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"password link for {self.user}"


class AuditAction(models.TextChoices):
    PASSWORD_LINK_ISSUED = "password_link_issued", "Set-password link issued"
    PASSWORD_LINK_REFUSED = "password_link_refused", "Set-password link refused"
    PASSWORD_SET = "password_set", "Password set through a link"
    PASSWORD_LINK_BAD = "password_link_bad", "Unusable set-password link tried"
    PASSWORD_RESET_MAILED = "password_reset_mailed", "Password reset e-mail requested"
    PASSWORD_RESET_DONE = "password_reset_done", "Password reset through e-mail"
    STUDENT_ADDED = "student_added", "Student added"
    ROSTER_IMPORTED = "roster_imported", "Roster file imported"
    ROLE_CHANGED = "role_changed", "Role changed"
    DEACTIVATED = "deactivated", "Deactivated"
    REACTIVATED = "reactivated", "Reactivated"
    GROUP_CHANGED = "group_changed", "Group changed"


class AuditEvent(models.Model):
    """Who did what to whose account or roster, when, and from where. Never holds a secret."""

    offering = models.ForeignKey(
        Offering, null=True, blank=True, on_delete=models.CASCADE, related_name="audit_events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=40, choices=AuditAction.choices)
    detail = models.CharField(max_length=500, blank=True)
    address = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["offering", "-created_at"])]
        constraints = [
            models.CheckConstraint(condition=~Q(action=""), name="audit_event_has_an_action"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} ({self.created_at:%Y-%m-%d %H:%M})"
