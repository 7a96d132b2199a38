"""The studio's zip upload is streamed against real sizes (issue 33, S3).

The review: the upload checked the sizes a zip declares, then inflated each member whole; a
333-byte bzip2 zip cost about 390 MB and a 6 KB zip held the request 31 s. Each bomb here is
built small in the test, most with forged declared sizes (the central directory and local
headers say 100 bytes: the standard library stops returning bytes there, but `read()` had
inflated the whole compressed stream first), and must be refused with a clear message while
the process's traced memory stays within a few MB of the upload itself.
"""

from __future__ import annotations

import io
import struct
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quizzes.services import authoring
from quizzes.services.authoring import files

MB = 2**20


def _zip(members: dict[str, tuple[int, int]], method=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip whose members are `size` bytes of `byte`, written in 1 MB chunks (never held
    whole)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, (size, byte) in members.items():
            with archive.open(name, "w") as member:
                chunk = bytes([byte]) * MB
                for _ in range(size // MB):
                    member.write(chunk)
    return buffer.getvalue()


def _forge_sizes(data: bytes, declared: int = 100) -> bytes:
    """The same zip, every member declaring `declared` bytes unpacked (local headers and the
    central directory alike), as a hostile zip would."""
    data = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        start = archive.start_dir
        for info in archive.infolist():
            struct.pack_into("<I", data, info.header_offset + 22, declared)
    position = start
    while data[position : position + 4] == b"PK\x01\x02":
        struct.pack_into("<I", data, position + 24, declared)
        name, extra, comment = struct.unpack_from("<HHH", data, position + 28)
        position += 46 + name + extra + comment
    return bytes(data)


def _upload(name: str, data: bytes):
    return SimpleUploadedFile(name, data, content_type="application/zip")


def _refused(course, author, upload) -> tuple[str, int]:
    """The refusal's message and the traced memory peak while it was reached."""
    tracemalloc.start()
    try:
        with pytest.raises(authoring.AuthoringError) as refused:
            authoring.import_upload(upload, course=course, user=author)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return str(refused.value), peak


pytestmark = pytest.mark.django_db


def test_a_deflate_bomb_with_forged_sizes_is_refused_as_it_inflates(course, author):
    bomb = _forge_sizes(_zip({"chapter/bomb.yaml": (64 * MB, ord("a"))}))
    assert len(bomb) < 400_000
    message, peak = _refused(course, author, _upload("bank.zip", bomb))
    assert "'chapter/bomb.yaml' cannot be unpacked: its content does not match" in message
    # Inflated 64 kB at a time and stopped at its declared size: never the 64 MB it holds.
    assert peak < 4 * MB + len(bomb) * 3, peak


@pytest.mark.parametrize(
    ("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "LZMA")]
)
def test_bzip2_and_lzma_bombs_are_refused_before_anything_is_inflated(course, author, method, name):
    bomb = _forge_sizes(_zip({"chapter/bomb.yaml": (32 * MB, 0)}, method))
    assert len(bomb) < 20_000
    message, peak = _refused(course, author, _upload("bank.zip", bomb))
    assert f"'chapter/bomb.yaml' is compressed with {name}; only deflate" in message
    assert peak < 2 * MB + len(bomb) * 3, peak


def test_a_deflate_bomb_declaring_its_real_size_is_refused_unread(course, author):
    bomb = _zip({f"chapter/m{i}.yaml": (4 * MB, ord("#")) for i in range(8)})
    message, peak = _refused(course, author, _upload("bank.zip", bomb))
    assert "The zip unpacks to more than 20 MB; is it really an export?" in message
    assert peak < 2 * MB + len(bomb) * 3, peak


def test_a_nested_archive_is_refused_unopened(course, author):
    inner = _zip({"chapter/bomb.yaml": (24 * MB, ord("a"))})
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("chapter/inner.zip", inner)
    message, _ = _refused(course, author, _upload("bank.zip", outer.getvalue()))
    assert "'chapter/inner.zip' is not a .yaml file" in message
    disguised = io.BytesIO()
    with zipfile.ZipFile(disguised, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("chapter/inner.yaml", inner)
    message, peak = _refused(course, author, _upload("bank.zip", disguised.getvalue()))
    assert "'chapter/inner.yaml' is binary, not a YAML text file" in message
    assert peak < 8 * MB, peak


def test_an_honest_export_still_imports(course, author, settings):
    settings.QUIZ_PUBLICATION_SEEDS = 20
    text = authoring.with_fields(authoring.starter_source("numeric"), slug="zipped-q")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inference/zipped-q.yaml", text)
    report = authoring.import_upload(
        _upload("bank.zip", buffer.getvalue()), course=course, user=author
    )
    assert report.sync.created == ["zipped-q"]


def test_the_running_budget_refuses_the_byte_past_it():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.yaml", "x" * 600)
        archive.writestr("b.yaml", "y" * 401)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        first, second = archive.infolist()
        assert files._read_member(archive, first, 1000) == b"x" * 600
        # What is left of the upload's budget after a.yaml: 400 bytes, one fewer than b.yaml.
        with pytest.raises(authoring.AuthoringError, match="more than 20 MB .at 'b.yaml'."):
            files._read_member(archive, second, 1000 - 600)
        assert files._read_member(archive, second, 401) == b"y" * 401
