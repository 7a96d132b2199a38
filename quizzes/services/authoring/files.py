"""The bank as files: export every template and quiz to a folder or a zip, import them back.

Export writes each template's latest published version (``--drafts``: the current draft, so
never-published templates are included) as ``<chapter>/<slug>.yaml``, byte for byte the text
that was published, and each quiz as ``quizzes/<slug>.yaml`` in the format of
``docs/quiz-format.md``. Import checks every file first (parse, cross-check against the bank,
the publication gate, ``bank.check_for_publication``) and writes all or nothing; files that match
what is stored change nothing.
"""

from __future__ import annotations

import io
import re
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import UTC
from decimal import Decimal
from pathlib import Path, PurePosixPath

import yaml
from django.db import transaction

from quizzes.models import QuestionTemplate, Quiz, QuizItem, VersionOrigin
from quizzes.services.authoring.budgets import deadline_after, validation_budget
from quizzes.services.authoring.drafts import AuthoringError
from quizzes.services.bank import (
    Bank,
    BankError,
    SyncReport,
    TemplateFile,
    compose_mapping,
    content_hash,
    cross_check,
    folder_files,
    gate,
    is_quiz_path,
    publication_seeds,
    read_files,
    sync_bank,
)

MAX_UPLOAD_BYTES = 2 * 2**20
MAX_UNPACKED_BYTES = 20 * 2**20
MAX_FILES = 1000
YAML_SUFFIXES = (".yaml", ".yml")
_CHAPTER = re.compile(r"^chapter:\s*['\"]?([A-Za-z0-9_-]+)", re.MULTILINE)
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class ImportReport:
    sync: SyncReport
    quizzes_unchanged: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        s = self.sync
        return bool(s.created or s.updated or s.quizzes_created or s.quizzes_updated)

    def summary(self) -> str:
        s = self.sync
        return (
            f"templates: created {len(s.created)}, updated {len(s.updated)}, unchanged "
            f"{len(s.unchanged)}; quizzes: created {len(s.quizzes_created)}, updated "
            f"{len(s.quizzes_updated)}, unchanged "
            f"{len(s.quizzes_unchanged) + len(self.quizzes_unchanged)}"
        )


# -- export ----------------------------------------------------------------------------------


def export_files(*, course, drafts: bool = False, offering=None) -> dict[str, str]:
    """{relative path: text} of every template of ``course``'s bank and every quiz of
    ``offering`` (by default the site's default offering, whose quizzes the files define)."""
    files: dict[str, str] = {}
    templates = QuestionTemplate.objects.for_course(course).select_related("current_version")
    for template in templates.order_by("slug"):
        if drafts:
            text = template.draft_source
        elif template.current_version is not None:
            text = template.current_version.source
        else:
            continue
        match = _CHAPTER.search(text)
        chapter = match.group(1) if match else (template.chapter_slug or "uncategorized")
        files[f"{chapter}/{template.slug}.yaml"] = text
    offering = offering or course.offerings.default()
    quizzes = Quiz.objects.for_offering(offering).select_related("chapter").order_by("slug")
    items = _items_by_quiz(quizzes)
    for quiz in quizzes:
        files[f"quizzes/{quiz.slug}.yaml"] = quiz_text(quiz, items.get(quiz.pk, []))
    return files


def _items_by_quiz(quizzes) -> dict[int, list[QuizItem]]:
    grouped: dict[int, list[QuizItem]] = {}
    rows = QuizItem.objects.filter(quiz__in=quizzes).select_related("template")
    for item in rows.order_by("quiz", "position"):
        grouped.setdefault(item.quiz_id, []).append(item)
    return grouped


def quiz_text(quiz: Quiz, items: list[QuizItem]) -> str:
    """The quiz definition file of ``quiz`` (docs/quiz-format.md), deterministic for a state."""
    data: dict = {"slug": str(quiz.slug), "title": str(quiz.title)}
    if quiz.chapter is not None:
        data["chapter"] = quiz.chapter.slug
    if quiz.description:
        data["description"] = quiz.description
    data.update(
        position=quiz.position,
        # str(): a quiz built in memory holds TextChoices members, which YAML cannot write.
        mode=str(quiz.mode),
        max_attempts=quiz.max_attempts,
        tries_per_variant=quiz.tries_per_variant,
        time_limit_minutes=quiz.time_limit_minutes,
        release=str(quiz.release),
        show_answers=str(quiz.show_answers),
        late_policy=str(quiz.late_policy),
        late_penalty=_number(quiz.late_penalty),
        opens=_moment(quiz.opens_at),
        due=_moment(quiz.due_at),
        closes=_moment(quiz.closes_at),
        published=quiz.is_published,
        items=_item_specs(quiz, items),
    )
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _item_specs(quiz: Quiz, items: list[QuizItem]) -> list[dict]:
    specs: list[dict] = []
    pools_done: set[str] = set()
    draws = quiz.pools or {}
    for item in items:
        if not item.pool:
            specs.append({"template": item.template.slug, "points": _number(item.points)})
            continue
        if item.pool in pools_done or not draws.get(item.pool, 1):
            # A pool that draws nothing holds answered items a quiz file dropped: not exported.
            continue
        pools_done.add(item.pool)
        members = [i for i in items if i.pool == item.pool]
        specs.append(
            {
                "pool": item.pool,
                "draw": int(draws.get(item.pool, len(members))),
                "points": _number(item.points),
                "templates": [i.template.slug for i in members],
            }
        )
    return specs


def _number(value: Decimal) -> int | float:
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)


def _moment(value) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def export_to_dir(root: Path, *, course, drafts: bool = False, offering=None) -> list[str]:
    """Write the export under ``root`` (which must be empty or absent); the paths written."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise AuthoringError(f"{root} exists and is not an empty folder; choose a new folder.")
    files = export_files(course=course, drafts=drafts, offering=offering)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(files)


def export_zip(*, course, drafts: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, text in sorted(export_files(course=course, drafts=drafts).items()):
            archive.writestr(f"questions/{rel}", text)
    return buffer.getvalue()


# -- import ----------------------------------------------------------------------------------


def read_import(
    root: Path, *, course, seeds: int | None = None, budget_s: float | None = None
) -> Bank:
    """Read and check every file under ``root`` (see ``read_import_files``)."""
    files = folder_files(root)
    if not files:
        raise BankError([f"{root.name or root}: no .yaml files to import"])
    return read_import_files(files, course=course, seeds=seeds, budget_s=budget_s)


def read_import_files(
    files: list[tuple[str, str | None]],
    *,
    course,
    seeds: int | None = None,
    budget_s: float | None = None,
    roots: dict | None = None,
) -> Bank:
    """Check (path, text) pairs through the bank's one reader and the publication gate; raise
    BankError naming each bad file. ``roots``: texts already composed, by path (`read_files`).

    With ``budget_s`` (an upload in a web request) the validations share that many seconds;
    a file left unvalidated when it runs out is a problem, so nothing is imported unchecked.
    """
    if not files:
        raise BankError(["the upload: no .yaml files to import"])
    deadline = None if budget_s is None else deadline_after(budget_s)
    seeds = publication_seeds() if seeds is None else seeds
    passes = gate.recorded_passes()
    bank, problems = read_files(
        files,
        is_quiz=is_quiz_path,
        on_template=lambda tf: _validation_problems(tf, seeds, deadline, budget_s, passes),
        roots=roots,
    )
    known = set(QuestionTemplate.objects.for_course(course).values_list("slug", flat=True))
    problems.extend(cross_check(bank, known))
    if problems:
        raise BankError(problems)
    return bank


def _validation_problems(tf: TemplateFile, seeds: int, deadline, budget_s, passes) -> list[str]:
    left = None if deadline is None else deadline - time.monotonic()
    if left is not None and left <= 0 and (tf.content_hash, seeds) not in passes:
        return [
            f"{tf.path}: not validated: the upload's time budget of {budget_s:g} s ran out; "
            "upload fewer files at once, or import them with the import_questions command"
        ]
    return gate.refusals(tf, seeds=seeds, budget_s=left, passes=passes)


def import_dir(
    root: Path, *, course, user=None, seeds: int | None = None, budget_s: float | None = None
) -> ImportReport:
    """Check everything under ``root``, then write all of it in one transaction, or nothing."""
    bank = read_import(root, course=course, seeds=seeds, budget_s=budget_s)
    return _write_import(bank, course=course, user=user, origin=VersionOrigin.IMPORT)


def import_files(
    files: list[tuple[str, str | None]],
    *,
    course,
    user=None,
    budget_s: float | None = None,
    roots: dict | None = None,
) -> ImportReport:
    """Check (path, text) pairs, then write all of them in one transaction, or nothing."""
    bank = read_import_files(files, course=course, budget_s=budget_s, roots=roots)
    return _write_import(bank, course=course, user=user, origin=VersionOrigin.UPLOAD)


def _write_import(bank: Bank, *, course, user, origin: str) -> ImportReport:
    """Templates to the course's bank; quizzes to the offerings that follow the files (an
    unchanged quiz is judged against the default one's)."""
    offering = course.offerings.default()
    with transaction.atomic():
        existing = {
            q.slug: q for q in Quiz.objects.for_offering(offering).select_related("chapter")
        }
        items = _items_by_quiz(list(existing.values()))
        unchanged = [
            qf.slug
            for qf in bank.quizzes
            if qf.slug in existing
            and (
                existing[qf.slug].content_hash == content_hash(qf.text)
                or quiz_text(existing[qf.slug], items.get(existing[qf.slug].pk, [])) == qf.text
            )
        ]
        bank.quizzes = [qf for qf in bank.quizzes if qf.slug not in unchanged]
        report = sync_bank(bank=bank, course=course, user=user, origin=origin)
    return ImportReport(sync=report, quizzes_unchanged=unchanged)


def import_upload(upload, *, course, user=None) -> ImportReport:
    """Import an uploaded zip of an export, or one .yaml file; AuthoringError if it is unusable."""
    name = PurePosixPath(getattr(upload, "name", "") or "upload").name
    if upload.size > MAX_UPLOAD_BYTES:
        raise AuthoringError(
            f"The file is {upload.size / 2**20:.1f} MB; uploads are limited to "
            f"{MAX_UPLOAD_BYTES // 2**20} MB."
        )
    data = upload.read(MAX_UPLOAD_BYTES + 1)
    lower = name.lower()
    roots = {}
    if lower.endswith(".zip"):
        files = _zip_files(data)
    elif lower.endswith(YAML_SUFFIXES):
        path, text, root = _single_file(name, data)
        files = [(path, text)]
        if root is not None:
            roots[path] = root
    else:
        raise AuthoringError("Upload a .zip made by the export, or a single .yaml file.")
    return import_files(files, course=course, user=user, budget_s=validation_budget(), roots=roots)


# Member compressions read: deflate is what the export, and every common zip tool by default,
# writes. bzip2 and LZMA are refused before anything is unpacked: the standard library inflates
# a whole compressed block of them in one call (a 333-byte bzip2 member became 390 MB).
READ_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
OTHER_METHODS = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA"}
CHUNK_BYTES = 64 * 2**10


def _zip_files(data: bytes) -> list[tuple[str, str]]:
    """The (path, text) of every member of an uploaded zip, read in memory, never unpacked to
    disk. The sizes a zip declares are only a first check: every member is inflated in chunks
    against one running budget for the whole upload (`MAX_UNPACKED_BYTES`), refused the moment
    the bytes really produced pass it."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise AuthoringError("The file is not a valid zip archive.") from None
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > MAX_FILES:
            raise AuthoringError(f"The zip holds {len(members)} files; at most {MAX_FILES}.")
        if sum(info.file_size for info in members) > MAX_UNPACKED_BYTES:
            raise AuthoringError(_too_big())
        files = []
        left = MAX_UNPACKED_BYTES
        for info in members:
            rel = _safe_member(info)
            if not rel.name.lower().endswith(YAML_SUFFIXES):
                raise AuthoringError(f"'{info.filename}' is not a .yaml file; only YAML is read.")
            content = _read_member(archive, info, left)
            left -= len(content)
            _check_text(info.filename, content)
            files.append((str(rel), content.decode("utf-8")))
    return sorted(files)


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, left: int) -> bytes:
    """One member's bytes, inflated `CHUNK_BYTES` at a time; AuthoringError as soon as the
    upload's running total would pass `left`, or when the member cannot be read."""
    if info.compress_type not in READ_METHODS:
        method = OTHER_METHODS.get(info.compress_type, f"method {info.compress_type}")
        raise AuthoringError(
            f"'{info.filename}' is compressed with {method}; only deflate (what the export and "
            "zip tools write by default) or no compression is read. Nothing was imported."
        )
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK_BYTES):
                size += len(chunk)
                if size > left:
                    raise AuthoringError(_too_big(info.filename))
                chunks.append(chunk)
    except zipfile.BadZipFile as exc:
        if "CRC" in str(exc):
            # The standard library stops at the declared size; the checksum then fails.
            raise AuthoringError(
                f"'{info.filename}' cannot be unpacked: its content does not match the size "
                "and checksum the zip declares for it (a damaged or forged zip). Nothing was "
                "imported."
            ) from None
        raise AuthoringError(f"'{info.filename}' cannot be unpacked ({exc}).") from None
    except (RuntimeError, NotImplementedError, ValueError, EOFError) as exc:
        raise AuthoringError(f"'{info.filename}' cannot be unpacked ({exc}).") from None
    except zlib.error as exc:
        raise AuthoringError(f"'{info.filename}' cannot be unpacked ({exc}).") from None
    return b"".join(chunks)


def _too_big(at: str | None = None) -> str:
    where = f" (at '{at}')" if at else ""
    return (
        f"The zip unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MB{where}; is it really an "
        "export? Nothing was imported."
    )


def _safe_member(info: zipfile.ZipInfo) -> PurePosixPath:
    """The member's path, refused if it could land outside the folder it is unpacked into."""
    name = info.filename
    path = PurePosixPath(name)
    mode = info.external_attr >> 16
    is_link = (mode & 0o170000) == 0o120000
    if (
        "\\" in name
        or path.is_absolute()
        or ".." in path.parts
        or re.match(r"^[A-Za-z]:", name)
        or is_link
        or not all(_SAFE_NAME.match(part) for part in path.parts)
    ):
        raise AuthoringError(f"The zip entry '{name}' has an unsafe path; nothing was imported.")
    return path


def _check_text(name: str, content: bytes) -> None:
    if b"\x00" in content:
        raise AuthoringError(f"'{name}' is binary, not a YAML text file.")
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        raise AuthoringError(f"'{name}' is not UTF-8 text.") from None


def _single_file(name: str, content: bytes):
    """(path, text, composed root or None) of a lone uploaded file: the path says whether it
    is a quiz or a template, which only its fields tell, so the text is composed here once and
    the reader is handed the result (bad YAML is left for the reader to report, with its line).
    """
    _check_text(name, content)
    if not _SAFE_NAME.match(name):
        name = "upload.yaml"
    text = content.decode("utf-8")
    root = compose_mapping(text)
    # A quiz definition lists items; anything else is read (and reported on) as a template.
    folder = "quizzes" if root is not None and "items" in root.keys() else "templates"
    return f"{folder}/{name}", text, root
