"""export_questions / import_questions and the studio's zip download and upload.

Import checks every file first and writes all or nothing; an unchanged export changes nothing;
the whole shipped bank survives export -> import into a fresh database -> export unchanged.
"""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from quizzes.engine import CHAPTERS
from quizzes.models import QuestionTemplate, Quiz, QuizItem, TemplateVersion
from quizzes.services import authoring
from quizzes.services.bank import read_bank, sync_bank
from tests.factories import ChapterFactory, PartFactory, offering_of
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db
SEEDS = "10"


def files_under(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def snapshot() -> tuple:
    """Everything an import could change, to prove that it did not."""
    return (
        sorted(QuestionTemplate.objects.values_list("slug", "draft_source", "current_version")),
        sorted(TemplateVersion.objects.values_list("template__slug", "number", "content_hash")),
        sorted(Quiz.objects.values_list("slug", "title", "content_hash", "pools")),
        sorted(QuizItem.objects.values_list("quiz__slug", "template__slug", "position", "points")),
    )


@pytest.fixture
def chapters(course):
    part = PartFactory(course=course)
    return {slug: ChapterFactory(part=part, slug=slug) for slug in CHAPTERS}


def add_quiz(course, chapters, slugs):
    quiz = Quiz.objects.create(
        offering=offering_of(course),
        slug="mixed-quiz",
        title="Quiz: a bit of everything",
        chapter=chapters["inference"],
        description="Pools, dates and points.",
        due_at=datetime(2030, 1, 15, 23, 59, tzinfo=UTC),
        late_penalty=Decimal("0.25"),
        pools={"pick": 1},
    )
    templates = {t.slug: t for t in QuestionTemplate.objects.filter(slug__in=slugs)}
    QuizItem.objects.create(quiz=quiz, template=templates[slugs[0]], position=1, points=2)
    for n, slug in enumerate(slugs[1:3], start=2):
        QuizItem.objects.create(
            quiz=quiz, template=templates[slug], position=n, points=Decimal("1.5"), pool="pick"
        )
    return quiz


def wipe_bank() -> None:
    QuizItem.objects.all().delete()
    Quiz.objects.all().delete()
    QuestionTemplate.objects.update(current_version=None)
    TemplateVersion.objects.all().delete()
    QuestionTemplate.objects.all().delete()


def test_whole_bank_round_trips_through_a_fresh_database(tmp_path, course, chapters):
    bank = read_bank()
    sync_bank(bank=bank, course=course)
    slugs = sorted(t.slug for t in bank.templates)
    add_quiz(course, chapters, slugs)
    first, second = tmp_path / "first", tmp_path / "second"
    call_command("export_questions", str(first), stdout=io.StringIO())
    exported = files_under(first)
    assert len([p for p in exported if not p.startswith("quizzes/")]) == len(bank.templates)
    originals = {t.slug: t.text for t in bank.templates}
    for path, text in exported.items():
        if not path.startswith("quizzes/"):
            assert text == originals[Path(path).stem]

    wipe_bank()
    call_command("import_questions", str(first), "--seeds", SEEDS, stdout=io.StringIO())
    assert QuestionTemplate.objects.count() == len(bank.templates)
    call_command("export_questions", str(second), stdout=io.StringIO())
    assert files_under(second) == exported


def test_importing_an_unchanged_export_changes_nothing(tmp_path, course, chapters):
    for slug in ("one-q", "two-q", "three-q"):
        make_template(course, slug, publish=True)
    add_quiz(course, chapters, ["one-q", "two-q", "three-q"])
    call_command("export_questions", str(tmp_path / "x"), stdout=io.StringIO())
    before = snapshot()
    out = io.StringIO()
    call_command("import_questions", str(tmp_path / "x"), "--seeds", SEEDS, stdout=out)
    assert snapshot() == before
    assert "created 0, updated 0, unchanged 3" in out.getvalue()


def test_one_broken_file_refuses_the_whole_import(tmp_path, course):
    make_template(course, "one-q", publish=True)
    root = tmp_path / "x"
    call_command("export_questions", str(root), stdout=io.StringIO())
    good = authoring.with_fields(authoring.starter_source("choice"), slug="brand-new")
    (root / "roofline").mkdir(exist_ok=True)
    (root / "roofline" / "brand-new.yaml").write_text(good)
    broken = root / "inference" / "one-q.yaml"
    broken.write_text(broken.read_text().replace("w / acc.memory_bandwidth", "w / bw_of(acc)", 1))
    before = snapshot()
    with pytest.raises(CommandError) as refused:
        call_command("import_questions", str(root), "--seeds", SEEDS, stdout=io.StringIO())
    assert "inference/one-q.yaml" in str(refused.value)
    assert "bw_of" in str(refused.value)
    assert snapshot() == before
    assert not QuestionTemplate.objects.filter(slug="brand-new").exists()


def test_a_template_failing_validation_refuses_the_import(tmp_path, course):
    root = tmp_path / "x"
    (root / "inference").mkdir(parents=True)
    text = authoring.with_fields(authoring.starter_source("numeric"), slug="too-tight")
    (root / "inference" / "too-tight.yaml").write_text(
        text.replace("plausible: [1.0e-4, 0.1]", "plausible: [1.0, 2.0]")
    )
    with pytest.raises(CommandError, match=r"too-tight\.yaml: validation"):
        call_command("import_questions", str(root), "--seeds", SEEDS, stdout=io.StringIO())
    assert not QuestionTemplate.objects.exists()


def test_a_quiz_naming_an_unknown_template_refuses_the_import(tmp_path, course):
    make_template(course, "one-q", publish=True)
    root = tmp_path / "x"
    (root / "quizzes").mkdir(parents=True)
    (root / "quizzes" / "q.yaml").write_text(
        "slug: q\ntitle: Q\nitems:\n  - template: one-qq\n    points: 1\n"
    )
    with pytest.raises(CommandError, match="did you mean 'one-q'"):
        call_command("import_questions", str(root), "--seeds", SEEDS, stdout=io.StringIO())
    assert not Quiz.objects.exists()


def test_export_writes_published_versions_and_drafts_only_on_request(tmp_path, course, author):
    published = make_template(course, "one-q", publish=True)
    make_template(course, "draft-only")
    edited = published.draft_source.replace("difficulty: 2", "difficulty: 3")
    authoring.save_draft(template=published, text=edited, revision=1, user=author)
    call_command("export_questions", str(tmp_path / "pub"), stdout=io.StringIO())
    files = files_under(tmp_path / "pub")
    assert list(files) == ["inference/one-q.yaml"]
    assert "difficulty: 2" in files["inference/one-q.yaml"]
    call_command("export_questions", str(tmp_path / "drafts"), "--drafts", stdout=io.StringIO())
    drafts = files_under(tmp_path / "drafts")
    assert "difficulty: 3" in drafts["inference/one-q.yaml"]
    assert "inference/draft-only.yaml" in drafts


def test_export_refuses_a_folder_that_is_not_empty(tmp_path, course):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="not an empty folder"):
        call_command("export_questions", str(tmp_path), stdout=io.StringIO())


# -- the studio's download and upload ---------------------------------------------------------


@pytest.fixture
def author_client(client, author):
    client.force_login(author)
    return client


def zip_of(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def upload(client, name: str, data: bytes):
    return client.post(reverse("studio:bank_import"), {"file": SimpleUploadedFile(name, data)})


def test_download_is_a_zip_of_the_export(author_client, course):
    make_template(course, "one-q", publish=True)
    response = author_client.get(reverse("studio:bank_export"))
    assert response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == ["questions/inference/one-q.yaml"]


def test_uploading_the_downloaded_zip_changes_nothing(author_client, course):
    make_template(course, "one-q", publish=True)
    data = author_client.get(reverse("studio:bank_export")).content
    before = snapshot()
    response = upload(author_client, "export.zip", data)
    assert response.status_code == 200
    assert snapshot() == before


def test_uploading_a_single_template_creates_it(author_client, course):
    text = authoring.with_fields(authoring.starter_source("formula"), slug="uploaded-q")
    response = upload(author_client, "uploaded-q.yaml", text.encode())
    assert response.status_code == 200
    template = QuestionTemplate.objects.get(slug="uploaded-q")
    assert template.current_version.source == text


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("bank.zip", b"this is not a zip", "not a valid zip"),
        ("notes.txt", b"hello", "Upload a .zip"),
        ("bin.yaml", b"slug: x\x00\x01\x02", "binary"),
        ("latin.yaml", "title: caf\u00e9".encode("latin-1"), "not UTF-8"),
        ("evil.zip", zip_of({"../../etc/passwd.yaml": b"slug: x"}), "unsafe path"),
        ("abs.zip", zip_of({"/tmp/x.yaml": b"slug: x"}), "unsafe path"),
        ("win.zip", zip_of({"..\\x.yaml": b"slug: x"}), "unsafe path"),
        ("exe.zip", zip_of({"run.sh": b"rm -rf /"}), "not a .yaml file"),
        ("empty.zip", zip_of({}), "no .yaml files"),
        ("broken.yaml", b"slug: [", "not valid YAML"),
    ],
)
def test_bad_uploads_get_a_message_and_change_nothing(author_client, course, name, data, message):
    make_template(course, "one-q", publish=True)
    before = snapshot()
    response = upload(author_client, name, data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert snapshot() == before


def test_a_too_large_upload_is_refused(author_client, course, monkeypatch):
    from quizzes.services.authoring import files

    monkeypatch.setattr(files, "MAX_UPLOAD_BYTES", 100)
    response = upload(author_client, "big.zip", zip_of({"a.yaml": b"x" * 500}))
    assert response.status_code == 400
    assert "limited to" in response.content.decode()


def test_upload_without_a_file_is_a_message(author_client, course):
    response = author_client.post(reverse("studio:bank_import"))
    assert response.status_code == 400
    assert "Choose a file" in response.content.decode()
