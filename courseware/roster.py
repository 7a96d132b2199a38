"""An offering's roster, run by its instructors: add one student, deactivate and reactivate
(work kept), change a role, groups (sections, lab groups) and who is in them; a roster file is
read and applied by `courseware.roster_file`. Every change leaves an `AuditEvent`.

Whose account an instructor may manage (`managed_refusal`): a set-password link, or a new name
or e-mail from a roster file, would hand over the account, so only an account that is nothing
but a student, and only in offerings the instructor teaches, is theirs to manage; a staff
account, a site-wide role, or a student of someone else's offering is refused. Each write is one
keyword-only function inside a transaction; each raises ValidationError with a sentence for the
instructor.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from .models import (
    AuditAction,
    AuditEvent,
    Enrollment,
    EnrollmentSource,
    GroupKind,
    GroupMembership,
    Offering,
    Role,
    SiteRole,
    StudentGroup,
)

NAME_LENGTH = 150
USERNAME_LENGTH = 150


def audit(*, action: str, offering=None, actor=None, subject=None, detail="", address=None):
    return AuditEvent.objects.create(
        action=action,
        offering=offering,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        subject=subject,
        detail=str(detail)[:500],
        address=address or None,
    )


# ---------------------------------------------------------------- whose account is whose


def managed_refusal(*, offering: Offering, account, by) -> str | None:
    """Why `by`, an instructor of `offering`, may not manage `account` (its password, name or
    e-mail), or None when they may: the account must be a student of this offering, hold no
    role anywhere else but student, and be a student only in offerings `by` teaches."""
    if account.is_superuser or account.is_staff:
        return "This is a site staff account: only the site's administrators manage it."
    if SiteRole.objects.filter(user=account).exists():
        return "This account holds a site-wide role: only the site's administrators manage it."
    enrollments = list(Enrollment.objects.filter(user=account).select_related("offering"))
    if not any(e.offering_id == offering.pk and e.role == Role.STUDENT for e in enrollments):
        return "This account is not a student of this offering."
    if any(e.role != Role.STUDENT for e in enrollments):
        return (
            "This account is on the staff of an offering: only the site's administrators manage it."
        )
    others = {e.offering_id for e in enrollments if e.offering_id != offering.pk}
    if others:
        taught = set(
            Enrollment.objects.filter(
                user=by, offering_id__in=others, role=Role.INSTRUCTOR, is_active=True
            ).values_list("offering_id", flat=True)
        )
        if others - taught:
            return (
                "This student is also enrolled in an offering you do not teach, so only its "
                "instructors together, or a site administrator, can manage the account."
            )
    return None


# ---------------------------------------------------------------- one student


def check_username(username: str) -> str:
    username = (username or "").strip()
    if not username:
        raise ValidationError("Give a username.")
    if len(username) > USERNAME_LENGTH:
        raise ValidationError(f"A username is at most {USERNAME_LENGTH} characters.")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise ValidationError(
            f"“{username}” is not a username: use letters, digits and @ . + - _ only."
        ) from None
    return username


def check_email(email: str) -> str:
    email = (email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ValidationError(f"“{email[:80]}” is not an e-mail address.") from None
    return email


def add_student(
    *,
    offering: Offering,
    by,
    username: str,
    first_name: str = "",
    last_name: str = "",
    email: str = "",
    group: StudentGroup | None = None,
    address=None,
) -> tuple[object, str]:
    """Enrol a student, making their account if none has the username (with no password: they
    set one through a link or by e-mail). Returns the account and a sentence saying what
    happened. An existing account keeps its own name and e-mail."""
    username = check_username(username)
    email = check_email(email)
    first_name, last_name = first_name.strip()[:NAME_LENGTH], last_name.strip()[:NAME_LENGTH]
    if group is not None and group.offering_id != offering.pk:
        raise ValidationError("Choose one of this offering's groups.")
    User = get_user_model()
    with transaction.atomic():
        account = User.objects.filter(username__iexact=username).first()
        if account is None:
            account = User(
                username=username, first_name=first_name, last_name=last_name, email=email
            )
            account.set_unusable_password()
            try:
                with transaction.atomic():
                    account.save()
            except IntegrityError:
                raise ValidationError(f"“{username}” was taken a moment ago; try again.") from None
            said = f"{username}: a new account, enrolled as a student."
        else:
            said = (
                f"{account.username}: an existing account, enrolled as a student (its name "
                "and e-mail are its own)."
            )
        enrollment = Enrollment.objects.filter(user=account, offering=offering).first()
        if enrollment is not None:
            if enrollment.role != Role.STUDENT:
                raise ValidationError(
                    f"{account.username} is {Role(enrollment.role).label.lower()} of this offering."
                )
            if not enrollment.is_active:
                raise ValidationError(
                    f"{account.username} is already a student here, deactivated: reactivate "
                    "them on the roster instead."
                )
            raise ValidationError(f"{account.username} is already a student of this offering.")
        Enrollment.objects.create(
            user=account, offering=offering, role=Role.STUDENT, source=EnrollmentSource.SITE
        )
        if group is not None:
            GroupMembership.objects.get_or_create(group=group, user=account)
        audit(
            action=AuditAction.STUDENT_ADDED,
            offering=offering,
            actor=by,
            subject=account,
            detail=said,
            address=address,
        )
    return account, said


# ---------------------------------------------------------------- status and roles


@transaction.atomic
def set_active(*, enrollment: Enrollment, active: bool, by, address=None) -> Enrollment:
    """Deactivate a student (they keep every attempt and grade, no longer open the offering's
    pages, and the gradebook can leave them out) or reactivate them."""
    if enrollment.role != Role.STUDENT:
        raise ValidationError("Only students are deactivated; staff leave through their role.")
    if enrollment.is_active == active:
        return enrollment
    enrollment.is_active = active
    enrollment.save(update_fields=["is_active"])
    audit(
        action=AuditAction.REACTIVATED if active else AuditAction.DEACTIVATED,
        offering=enrollment.offering,
        actor=by,
        subject=enrollment.user,
        address=address,
    )
    return enrollment


@transaction.atomic
def change_role(*, enrollment: Enrollment, role: str, by, address=None) -> Enrollment:
    """Make a member of the offering a student, teaching assistant or instructor. Nobody
    changes their own role, and the offering keeps at least one instructor."""
    if role not in Role.values:
        raise ValidationError("Choose student, teaching assistant or instructor.")
    if enrollment.user_id == by.pk:
        raise ValidationError("You cannot change your own role; ask another instructor.")
    if enrollment.role == role:
        return enrollment
    if enrollment.role == Role.INSTRUCTOR:
        others = (
            Enrollment.objects.select_for_update()
            .filter(offering=enrollment.offering, role=Role.INSTRUCTOR, is_active=True)
            .exclude(pk=enrollment.pk)
        )
        if not others.exists():
            raise ValidationError("The offering must keep at least one instructor.")
    before = enrollment.get_role_display().lower()
    enrollment.role, enrollment.source, enrollment.is_active = role, EnrollmentSource.SITE, True
    enrollment.save(update_fields=["role", "source", "is_active"])
    audit(
        action=AuditAction.ROLE_CHANGED,
        offering=enrollment.offering,
        actor=by,
        subject=enrollment.user,
        detail=f"{before} → {enrollment.get_role_display().lower()}",
        address=address,
    )
    return enrollment


# ---------------------------------------------------------------- groups


def create_group(*, offering: Offering, name: str, kind: str = GroupKind.SECTION, by=None):
    name = (name or "").strip()
    if not name:
        raise ValidationError("Give the group a name, like “Section 2” or “Lab B”.")
    if len(name) > 80:
        raise ValidationError("A group's name is at most 80 characters.")
    if kind not in GroupKind.values:
        raise ValidationError("Choose section, lab group or group.")
    try:
        with transaction.atomic():
            group = StudentGroup.objects.create(offering=offering, name=name, kind=kind)
            audit(
                action=AuditAction.GROUP_CHANGED,
                offering=offering,
                actor=by,
                detail=f"created {group}",
            )
    except IntegrityError:
        raise ValidationError(f"This offering has a group called “{name}” already.") from None
    return group


@transaction.atomic
def delete_group(*, group: StudentGroup, by=None) -> None:
    """Delete a group: its memberships and its extensions and accommodations go with it (the
    students' own extensions and work stay)."""
    audit(
        action=AuditAction.GROUP_CHANGED,
        offering=group.offering,
        actor=by,
        detail=f"deleted {group}",
    )
    group.delete()


@transaction.atomic
def set_members(*, group: StudentGroup, user_ids, add: bool, by=None) -> int:
    """Add the offering's students `user_ids` to the group (or take them out); how many
    changed. Ids of anyone who is not a student of the group's offering are ignored."""
    students = set(
        Enrollment.objects.filter(
            offering=group.offering, role=Role.STUDENT, user_id__in=list(user_ids)
        ).values_list("user_id", flat=True)
    )
    if add:
        present = set(
            GroupMembership.objects.filter(group=group, user_id__in=students).values_list(
                "user_id", flat=True
            )
        )
        GroupMembership.objects.bulk_create(
            [GroupMembership(group=group, user_id=uid) for uid in students - present],
            ignore_conflicts=True,
        )
        changed = len(students - present)
    else:
        changed, _ = GroupMembership.objects.filter(group=group, user_id__in=students).delete()
    if changed:
        audit(
            action=AuditAction.GROUP_CHANGED,
            offering=group.offering,
            actor=by,
            detail=(
                f"added {changed} student(s) to {group}"
                if add
                else f"removed {changed} student(s) from {group}"
            ),
        )
    return changed
