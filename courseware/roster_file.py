"""A roster file (CSV), read, planned and applied in two steps: `plan_roster` reads the file and
says, line by line, what applying it would do and what is wrong with it, changing nothing;
`apply_roster` applies a plan only when the file has no errors and the roster still gives the
same plan (`Plan.digest`), so what the instructor confirmed is what happens. Applying the same
file again changes nothing.

The file: UTF-8 (a spreadsheet's byte-order mark is fine), comma- or semicolon-separated, a
header line naming the columns `username`, `name` (or `first_name` and `last_name`) and
`email`, and optionally `group` (a section or lab group of the offering, made when new). A
name is split at its last space into first and last name. At most `MAX_LINES` students.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Lower

from .models import (
    AuditAction,
    Enrollment,
    EnrollmentSource,
    GroupKind,
    GroupMembership,
    Offering,
    Role,
    StudentGroup,
)
from .roster import NAME_LENGTH, audit, check_email, check_username, managed_refusal

MAX_BYTES = 1024 * 1024
MAX_LINES = 5000
COLUMNS = {"username", "name", "first_name", "last_name", "email", "group"}


class RosterFileError(Exception):
    """The file cannot be read at all (not text, no header, too big); `message` says why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class Line:
    number: int
    username: str
    first_name: str
    last_name: str
    email: str
    group: str = ""
    action: str = ""  # "new", "enrol", "update", "unchanged", "" (an error)
    changes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()


@dataclass
class Plan:
    lines: list[Line]
    new_groups: list[str]

    @property
    def errors(self) -> list[Line]:
        return [line for line in self.lines if line.errors]

    def count(self, action: str) -> int:
        return sum(1 for line in self.lines if line.action == action and not line.errors)

    @property
    def changes_anything(self) -> bool:
        return bool(self.new_groups) or any(
            line.action in ("new", "enrol", "update") or line.changes for line in self.lines
        )

    @property
    def digest(self) -> str:
        """What applying would do, as a short hash: a confirmation carries the preview's."""
        text = repr(
            [(ln.number, ln.username, ln.action, ln.changes, ln.errors) for ln in self.lines]
            + [self.new_groups]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def decode(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise RosterFileError(f"The file is larger than {MAX_BYTES // 1024} KB.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RosterFileError(
            "The file is not UTF-8 text: save it from your spreadsheet as “CSV UTF-8”."
        ) from None


def _rows(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if "\x00" in text:
        raise RosterFileError("The file holds a NUL character: it is not a CSV text file.")
    lines = text.splitlines()
    header_line = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_line is None:
        raise RosterFileError("The file is empty.")
    delimiter = ";" if lines[header_line].count(";") > lines[header_line].count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip().lower().replace(" ", "_") for cell in row]
                continue
            rows.append((reader.line_num, row))
            if len(rows) > MAX_LINES:
                raise RosterFileError(f"The file lists more than {MAX_LINES:,} students.")
    except csv.Error as error:
        raise RosterFileError(f"Line {reader.line_num}: the file is not CSV ({error}).") from None
    unknown = [c for c in header if c and c not in COLUMNS]
    if "username" not in header or unknown:
        raise RosterFileError(
            "The first line must name the columns: username, name (or first_name and "
            "last_name), email, and optionally group"
            + (f"; it has {', '.join(repr(c) for c in unknown)}." if unknown else ".")
        )
    return header, rows


def _read(header: list[str], number: int, row: list[str]) -> Line:
    values = {name: "" for name in COLUMNS}
    for name, cell in zip(header, row):
        if name:
            values[name] = cell.strip()
    first, last = values["first_name"], values["last_name"]
    if values["name"] and not (first or last):
        first, _, last = values["name"].rpartition(" ")
        if not first:
            first, last = last, ""
    line = Line(number, values["username"], first, last, values["email"], values["group"])
    if len(row) > len(header):
        line.errors.append(f"{len(row)} values for {len(header)} columns (a stray comma?)")
    for check, attribute in ((check_username, "username"), (check_email, "email")):
        try:
            setattr(line, attribute, check(getattr(line, attribute)))
        except ValidationError as error:
            line.errors.extend(error.messages)
    if len(first) > NAME_LENGTH or len(last) > NAME_LENGTH:
        line.errors.append(f"a name is at most {NAME_LENGTH} characters")
    if len(line.group) > 80:
        line.errors.append("a group's name is at most 80 characters")
    return line


def plan_roster(*, offering: Offering, text: str, by) -> Plan:
    """What applying the file would do, line by line (a fixed number of queries)."""
    header, rows = _rows(text)
    lines = [_read(header, number, row) for number, row in rows]
    seen: dict[str, int] = {}
    for line in lines:
        key = line.username.lower()
        if key and key in seen:
            line.errors.append(f"the username is also on line {seen[key]}")
        seen.setdefault(key, line.number)
    accounts = _accounts(line.username for line in lines if line.username)
    enrolled = {
        e.user_id: e
        for e in Enrollment.objects.filter(offering=offering, user__in=list(accounts.values()))
    }
    groups = {g.name.lower(): g for g in StudentGroup.objects.filter(offering=offering)}
    members = set(
        GroupMembership.objects.filter(group__offering=offering).values_list("group_id", "user_id")
    )
    new_groups: list[str] = []
    for line in lines:
        if line.errors:
            continue
        account = accounts.get(line.username.lower())
        if line.group and line.group.lower() not in groups and line.group not in new_groups:
            new_groups.append(line.group)
        if account is None:
            line.action = "new"
            if line.group:
                line.changes.append(f"into {line.group}")
            continue
        enrollment = enrolled.get(account.pk)
        if enrollment is not None and enrollment.role != Role.STUDENT:
            line.errors.append(f"{account.username} is {Role(enrollment.role).label.lower()} here")
            continue
        line.action = "enrol" if enrollment is None else "unchanged"
        if enrollment is not None and not enrollment.is_active:
            line.notes.append("deactivated: stays so (reactivate on the roster)")
        wanted = {"first_name": line.first_name, "last_name": line.last_name, "email": line.email}
        differs = {k: v for k, v in wanted.items() if v and getattr(account, k) != v}
        if differs:
            refusal = (
                managed_refusal(offering=offering, account=account, by=by)
                if enrollment is not None
                else "an existing account"
            )
            if refusal is None:
                line.action = "update"
                line.changes += [f"{k.replace('_', ' ')} → {v}" for k, v in differs.items()]
            else:
                line.notes.append("its name and e-mail are its own and stay as they are")
        group = groups.get(line.group.lower()) if line.group else None
        if line.group and (group is None or (group.pk, account.pk) not in members):
            line.changes.append(f"into {line.group}")
    return Plan(lines, new_groups)


def _accounts(usernames) -> dict:
    """The accounts with these usernames, by lowercased username: a username differing only
    in case names the same person (two such accounts would be a mistake waiting to happen)."""
    wanted = sorted({name.lower() for name in usernames})
    return {
        u.username.lower(): u
        for u in get_user_model()
        .objects.annotate(lowered=Lower("username"))
        .filter(lowered__in=wanted)
    }


def apply_roster(*, offering: Offering, text: str, digest: str, by, address=None) -> Plan:
    """Apply the file if it has no errors and still plans what was previewed (`digest`);
    ValidationError otherwise (then nothing changed)."""
    with transaction.atomic():
        plan = plan_roster(offering=offering, text=text, by=by)
        if plan.errors:
            raise ValidationError("The file has errors; nothing was changed.")
        if plan.digest != digest:
            raise ValidationError(
                "The roster changed since the preview (or the file did): check the new preview."
            )
        if not plan.changes_anything:
            return plan
        User = get_user_model()
        groups = {g.name.lower(): g for g in StudentGroup.objects.filter(offering=offering)}
        for name in plan.new_groups:
            groups[name.lower()] = StudentGroup.objects.create(
                offering=offering, name=name, kind=GroupKind.SECTION
            )
        fresh = []
        for line in plan.lines:
            if line.action == "new":
                account = User(
                    username=line.username,
                    first_name=line.first_name,
                    last_name=line.last_name,
                    email=line.email,
                )
                account.set_unusable_password()
                fresh.append(account)
        User.objects.bulk_create(fresh)
        accounts = _accounts(ln.username for ln in plan.lines)
        enrolled = set(
            Enrollment.objects.filter(
                offering=offering, user__in=list(accounts.values())
            ).values_list("user_id", flat=True)
        )
        Enrollment.objects.bulk_create(
            [
                Enrollment(
                    user=accounts[ln.username.lower()],
                    offering=offering,
                    role=Role.STUDENT,
                    source=EnrollmentSource.SITE,
                )
                for ln in plan.lines
                if accounts[ln.username.lower()].pk not in enrolled
            ]
        )
        for line in plan.lines:
            account = accounts[line.username.lower()]
            if line.action == "update":
                for name in ("first_name", "last_name", "email"):
                    if getattr(line, name):
                        setattr(account, name, getattr(line, name))
                account.save(update_fields=["first_name", "last_name", "email"])
        GroupMembership.objects.bulk_create(
            [
                GroupMembership(group=groups[ln.group.lower()], user=accounts[ln.username.lower()])
                for ln in plan.lines
                if ln.group
            ],
            ignore_conflicts=True,
        )
        audit(
            action=AuditAction.ROSTER_IMPORTED,
            offering=offering,
            actor=by,
            detail=(
                f"{plan.count('new')} new, {plan.count('enrol')} enrolled, "
                f"{plan.count('update')} updated, {plan.count('unchanged')} unchanged; "
                f"groups made: {', '.join(plan.new_groups) or 'none'}"
            ),
            address=address,
        )
    return plan
