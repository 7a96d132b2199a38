"""Writing a checked bank to the database: new versions for changed files, nothing for the rest.

One source of truth. Every version records where its text came from (`VersionOrigin`: a bank
file, the studio, an upload, an import) and, for a file, its path. Syncing the bank's own folder
(`sync_questions`, so `make run`) publishes a file's text only while the template's current
version came from the files too; when the current version was made in the studio (or uploaded,
or imported) and differs from the file, the sync leaves it and reports the conflict by slug,
saying whether the file changed since the last sync. `--prefer-files` takes the files. An
import or an upload is an author's explicit act and publishes what it brings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from courseware.models import Chapter, Course, Offering
from quizzes.models import (
    QuestionTemplate,
    Quiz,
    QuizItem,
    TemplateStatus,
    TemplateVersion,
    VersionOrigin,
)

from .common import content_hash
from .quizfiles import ItemSpec
from .reading import Bank


@dataclass(frozen=True)
class Conflict:
    """A template whose current version was not made from its file, and differs from it."""

    slug: str
    path: str
    number: int
    origin: str
    file_changed: bool

    def __str__(self) -> str:
        made = VersionOrigin(self.origin).label if self.origin else "an earlier tool"
        change = (
            "the file changed since the last sync too"
            if self.file_changed
            else "the file has not changed since the last sync"
        )
        return f"{self.slug}: v{self.number} (from the {made}) differs from {self.path}; {change}"


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    quizzes_created: list[str] = field(default_factory=list)
    quizzes_updated: list[str] = field(default_factory=list)
    quizzes_unchanged: list[str] = field(default_factory=list)
    # Quizzes edited in the browser whose file differs: kept as edited, reported by slug.
    quiz_conflicts: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"templates: created {len(self.created)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}; quizzes: created {len(self.quizzes_created)}, "
            f"updated {len(self.quizzes_updated)}, unchanged {len(self.quizzes_unchanged)}"
        )
        if self.conflicts:
            text += (
                f"\n{len(self.conflicts)} template(s) kept their current version, which was not "
                "made from their file (export them to the files, or sync with --prefer-files "
                "to take the files):\n" + "\n".join(f"  {c}" for c in self.conflicts)
            )
        if self.quiz_conflicts:
            text += (
                f"\n{len(self.quiz_conflicts)} quiz(zes) kept their settings and questions, "
                "which were edited in the browser (sync with --prefer-files to take the "
                "files):\n" + "\n".join(f"  {c}" for c in self.quiz_conflicts)
            )
        return text


def file_offerings(course: Course) -> list[Offering]:
    """The offerings whose quizzes the quiz files define (`Offering.follows_files`)."""
    return list(course.offerings.filter(follows_files=True).order_by("pk"))


@transaction.atomic
def sync_bank(
    *,
    bank: Bank,
    course: Course,
    user=None,
    offerings: list[Offering] | None = None,
    origin: str = VersionOrigin.FILE,
    prefer_files: bool = False,
) -> SyncReport:
    """Write a checked bank to the database; unchanged files change nothing.

    A template whose file changed gets a new immutable version (students who already have
    variants keep theirs); its draft follows the file unless an author has edited the draft
    in the studio since the last version, in which case the author's draft is kept. From the
    bank's own files (`origin` FILE) a template whose current version came from elsewhere is
    left as it is and reported in ``conflicts``, unless ``prefer_files``.

    Templates go to the course's bank; quiz files go to each of `offerings` (by default the
    offerings that follow the files). A copied offering keeps its own quiz rows. A quiz edited
    in the browser since its file was last written keeps its settings and questions when its
    file differs (reported in `quiz_conflicts`), unless `prefer_files`.
    """
    report = SyncReport()
    from_files = origin == VersionOrigin.FILE
    existing = {
        t.slug: t
        for t in QuestionTemplate.objects.filter(course=course).select_related("current_version")
    }
    for tf in bank.templates:
        template = existing.get(tf.slug)
        if template is None:
            template = QuestionTemplate.objects.create(
                course=course,
                slug=tf.slug,
                title=tf.title,
                chapter_slug=tf.chapter,
                kind=tf.kind,
                status=TemplateStatus.PUBLISHED,
                draft_source=tf.text,
                source_path=tf.path if from_files else "",
                synced_hash=tf.content_hash if from_files else "",
                created_by=user,
            )
            publish_version(
                template=template,
                text=tf.text,
                title=tf.title,
                user=user,
                origin=origin,
                origin_path=tf.path,
            )
            existing[tf.slug] = template
            report.created.append(tf.slug)
            continue
        current = template.current_version
        if current is not None and current.content_hash == tf.content_hash:
            if from_files and template.synced_hash != tf.content_hash:
                template.synced_hash = tf.content_hash
                template.save(update_fields=["synced_hash"])
            report.unchanged.append(tf.slug)
            continue
        if from_files and current is not None and current.origin != VersionOrigin.FILE:
            if not prefer_files:
                changed = template.synced_hash != tf.content_hash
                report.conflicts.append(
                    Conflict(tf.slug, tf.path, current.number, current.origin, changed)
                )
                continue
        draft_untouched = current is None or template.draft_source == current.source
        publish_version(
            template=template,
            text=tf.text,
            title=tf.title,
            user=user,
            origin=origin,
            origin_path=tf.path,
        )
        template.title, template.chapter_slug, template.kind = tf.title, tf.chapter, tf.kind
        if from_files:
            template.source_path, template.synced_hash = tf.path, tf.content_hash
        if template.status == TemplateStatus.DRAFT:
            template.status = TemplateStatus.PUBLISHED
        if draft_untouched:
            template.draft_source = tf.text
            template.draft_revision += 1
        template.save()
        report.updated.append(tf.slug)

    chapters = {c.slug: c for c in Chapter.objects.for_course(course)}
    for offering in file_offerings(course) if offerings is None else offerings:
        _sync_quizzes(bank, offering, chapters, existing, report, prefer_files)
    return report


def _sync_quizzes(
    bank: Bank, offering: Offering, chapters, existing, report, prefer_files: bool
) -> None:
    for qf in bank.quizzes:
        quiz = Quiz.objects.filter(offering=offering, slug=qf.slug).first()
        edited = quiz is not None and quiz.edited_in_browser_at is not None
        if quiz is not None and quiz.content_hash == qf.content_hash and not edited:
            report.quizzes_unchanged.append(qf.slug)
            continue
        if edited and not prefer_files and _same_as_file(quiz, qf, chapters):
            # The file says what the quiz says (written from it with the quiz's Download as a
            # file): no conflict, and the quiz follows its file again from now on.
            Quiz.objects.filter(pk=quiz.pk).update(
                source_path=qf.path,
                content_hash=qf.content_hash,
                edited_in_browser_at=None,
                edited_by=None,
            )
            report.quizzes_unchanged.append(qf.slug)
            continue
        if edited and not prefer_files:
            change = (
                "the file changed since the last sync too"
                if quiz.content_hash != qf.content_hash
                else "the file has not changed since the last sync"
            )
            report.quiz_conflicts.append(
                f"{qf.slug} ({offering.slug}): edited in the browser on "
                f"{quiz.edited_in_browser_at:%Y-%m-%d %H:%M} UTC, differs from {qf.path}; {change}"
            )
            continue
        values = dict(qf.fields)
        values.update(
            title=qf.title,
            chapter=chapters.get(qf.chapter),
            pools=qf.pools,
            source_path=qf.path,
            content_hash=qf.content_hash,
            edited_in_browser_at=None,
            edited_by=None,
        )
        if quiz is None:
            quiz = Quiz.objects.create(offering=offering, slug=qf.slug, **values)
            report.quizzes_created.append(qf.slug)
        else:
            for name, value in values.items():
                setattr(quiz, name, value)
            quiz.save()
            report.quizzes_updated.append(qf.slug)
        set_quiz_items(quiz=quiz, items=qf.items, templates=existing)


def _same_as_file(quiz: Quiz, qf, chapters) -> bool:
    """Whether the quiz file ``qf`` holds exactly the quiz's settings and questions (in the
    order a file lists them: each pool's templates together, where its first one stands)."""
    for name, value in qf.fields.items():
        stored = getattr(quiz, name)
        if name == "description":
            stored, value = stored.strip(), value.strip()
        if stored != value:
            return False
    chapter = chapters.get(qf.chapter)
    if quiz.title != qf.title or quiz.chapter_id != (chapter.pk if chapter else None):
        return False
    drawn = {name: n for name, n in (quiz.pools or {}).items() if n}
    if drawn != qf.pools:
        return False
    return _file_order(quiz) == [(i.template, i.points, i.pool) for i in qf.items]


def _file_order(quiz: Quiz) -> list[tuple]:
    """The quiz's items as a quiz file lists them (a pool that draws nothing holds answered
    items a file dropped, and is not in any file)."""
    items = list(quiz.items.select_related("template").order_by("position"))
    draws = quiz.pools or {}
    rows, done = [], set()
    for item in items:
        if not item.pool:
            rows.append((item.template.slug, item.points, ""))
        elif item.pool not in done and draws.get(item.pool, 1):
            done.add(item.pool)
            rows += [(i.template.slug, i.points, i.pool) for i in items if i.pool == item.pool]
    return rows


def set_quiz_items(*, quiz: Quiz, items: list[ItemSpec], templates: dict) -> None:
    """Make the quiz's items match ``items``, keeping rows that students already answered."""
    current = {item.template.slug: item for item in quiz.items.select_related("template")}
    # Positions are unique per quiz: move existing rows out of the way first.
    if current:
        offset = 1000 + max(i.position for i in current.values())
        for item in current.values():
            item.position += offset
            item.save(update_fields=["position"])
    wanted = set()
    for position, spec in enumerate(items, start=1):
        wanted.add(spec.template)
        item = current.get(spec.template)
        if item is None:
            QuizItem.objects.create(
                quiz=quiz,
                template=templates[spec.template],
                position=position,
                points=spec.points,
                pool=spec.pool,
            )
        else:
            item.position, item.points, item.pool = position, spec.points, spec.pool
            item.save(update_fields=["position", "points", "pool"])
    next_position = len(items) + 1
    for slug, item in current.items():
        if slug in wanted:
            continue
        if item.variants.exists():
            # Answered items stay (their variants refer to them) but leave the quiz's draw:
            # they move to a pool that draws nothing.
            item.pool = "retired"
            item.position = next_position
            next_position += 1
            item.save(update_fields=["pool", "position"])
            quiz.pools = {**quiz.pools, "retired": 0}
            quiz.save(update_fields=["pools"])
        else:
            item.delete()


def publish_version(
    *,
    template: QuestionTemplate,
    text: str,
    title: str,
    origin: str,
    user=None,
    note: str = "",
    origin_path: str = "",
) -> TemplateVersion:
    """Create the next immutable version of ``template`` from ``text`` and make it current;
    ``origin`` (a `VersionOrigin`) and ``origin_path`` say where the text came from."""
    last = template.versions.order_by("-number").values_list("number", flat=True).first() or 0
    version = TemplateVersion.objects.create(
        template=template,
        number=last + 1,
        source=text,
        content_hash=content_hash(text),
        title=title,
        published_by=user,
        note=note,
        origin=origin,
        origin_path=origin_path[:300],
    )
    template.current_version = version
    template.status = TemplateStatus.PUBLISHED
    template.save(update_fields=["current_version", "status"])
    return version
