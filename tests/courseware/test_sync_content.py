"""sync_content: the book's files into chapter rows, idempotent and all or nothing."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from courseware.models import Chapter

pytestmark = pytest.mark.django_db

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"


def _sync(directory: Path | None = None) -> str:
    out = io.StringIO()
    args = ["--dir", str(directory)] if directory else []
    call_command("sync_content", *args, stdout=out)
    return out.getvalue()


def _chapter(slug: str, title: str = "A title", body: str = "Text.\n", order: int = 1) -> str:
    return f"---\nslug: {slug}\ntitle: {title}\norder: {order}\npart: 1\n---\n\n{body}"


@pytest.fixture
def book_dir(tmp_path):
    (tmp_path / "01-a.md").write_text(_chapter("alpha", "Alpha", order=1))
    (tmp_path / "02-b.md").write_text(_chapter("beta", "Beta", order=2))
    return tmp_path


def test_the_real_book_loads_and_a_second_run_changes_nothing(course):
    count = len(list(BOOK.glob("*.md")))
    assert f"created {count}, updated 0, unchanged 0" in _sync()
    assert Chapter.objects.count() == count
    hashes = dict(Chapter.objects.values_list("slug", "content_hash"))
    assert f"created 0, updated 0, unchanged {count}" in _sync()
    assert dict(Chapter.objects.values_list("slug", "content_hash")) == hashes


def test_front_matter_fills_the_chapter_row(course, book_dir):
    _sync(book_dir)
    alpha = Chapter.objects.get(slug="alpha")
    assert (alpha.title, alpha.order, alpha.part.number) == ("Alpha", 1, 1)
    assert alpha.source.startswith("---\nslug: alpha")
    assert alpha.source_path.endswith("01-a.md") and len(alpha.content_hash) == 64


def test_an_edited_file_is_reported_as_updated(course, book_dir):
    _sync(book_dir)
    (book_dir / "02-b.md").write_text(_chapter("beta", "Beta, revised", order=2))
    assert "created 0, updated 1, unchanged 1" in _sync(book_dir)
    assert Chapter.objects.get(slug="beta").title == "Beta, revised"


def _assert_refused(directory: Path, *expected: str) -> None:
    with pytest.raises(CommandError) as caught:
        _sync(directory)
    message = str(caught.value)
    assert "nothing was changed" in message
    for text in expected:
        assert text in message


def _snapshot():
    return list(Chapter.objects.order_by("slug").values_list("slug", "title", "content_hash"))


def test_a_live_expression_error_refuses_every_file_and_names_file_and_line(course, book_dir):
    _sync(book_dir)
    before = _snapshot()
    (book_dir / "02-b.md").write_text(_chapter("beta", "Beta, new", order=2))
    (book_dir / "03-c.md").write_text(_chapter("gamma", body="Fine.\n\n{{ ridge_pont('H100') }}\n"))
    _assert_refused(book_dir, "03-c.md, line 10", "ridge_point")
    assert _snapshot() == before


def test_a_duplicate_slug_is_refused(course, book_dir):
    (book_dir / "03-c.md").write_text(_chapter("alpha"))
    _assert_refused(book_dir, "03-c.md, line 2", "already used by", "01-a.md")
    assert not Chapter.objects.exists()


def test_missing_title_is_refused_with_the_file_name(course, book_dir):
    (book_dir / "03-c.md").write_text("---\nslug: gamma\norder: 3\n---\nText\n")
    _assert_refused(book_dir, "03-c.md", "title")
    assert not Chapter.objects.exists()


def test_a_file_without_front_matter_is_refused(course, book_dir):
    (book_dir / "03-c.md").write_text("# Just a heading\n")
    _assert_refused(book_dir, "03-c.md, line 1", "front matter")


def test_bad_yaml_is_refused_with_its_line(course, book_dir):
    (book_dir / "03-c.md").write_text("---\nslug: gamma\ntitle: [oops\n---\nText\n")
    _assert_refused(book_dir, "03-c.md, line")


def test_an_order_that_is_not_a_number_is_refused(course, book_dir):
    (book_dir / "03-c.md").write_text("---\nslug: gamma\ntitle: G\norder: first\n---\nText\n")
    _assert_refused(book_dir, "03-c.md, line 4", "order")


def test_all_problems_are_reported_at_once(course, book_dir):
    (book_dir / "03-c.md").write_text("no front matter\n")
    (book_dir / "04-d.md").write_text(_chapter("delta", body="{% unknown %}\n"))
    _assert_refused(book_dir, "03-c.md", "04-d.md", "2 problems")


def test_check_only_writes_nothing(course, book_dir):
    out = io.StringIO()
    call_command("sync_content", "--dir", str(book_dir), "--check", stdout=out)
    assert "2 chapter files are valid" in out.getvalue()
    assert not Chapter.objects.exists()


def test_without_a_course_it_says_what_to_run(db, book_dir):
    with pytest.raises(CommandError, match="setup_demo"):
        _sync(book_dir)


def test_a_chapter_whose_file_disappeared_is_kept(course, book_dir):
    _sync(book_dir)
    (book_dir / "02-b.md").unlink()
    assert "kept 1 with no file (beta)" in _sync(book_dir)
    assert Chapter.objects.filter(slug="beta").exists()


def test_the_real_book_copied_elsewhere_loads_the_same(course, tmp_path):
    for path in BOOK.glob("*.md"):
        shutil.copy(path, tmp_path / path.name)
    _sync(tmp_path)
    assert set(Chapter.objects.values_list("slug", flat=True)) >= {"roofline", "inference"}
