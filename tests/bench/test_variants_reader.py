"""The variants bench reads the bank's folder as the app does: the QUESTIONS_DIR setting, each
file through the bank's one reader."""

from __future__ import annotations

from bench import variants
from tests.engine.samples import NUMERIC


def test_the_bench_reads_the_setting_s_folder_through_the_bank_reader(tmp_path, settings):
    folder = tmp_path / "questions"
    (folder / "quizzes").mkdir(parents=True)
    (folder / "bandwidth-time.yaml").write_text(NUMERIC)
    (folder / "quizzes" / "chapter.yaml").write_text("not: a template\n")
    (folder / "binary.yaml").write_bytes(b"slug: x\x00\n")
    settings.QUESTIONS_DIR = folder
    templates, errors = variants._templates()
    assert [t.source for t in templates] == ["questions/bandwidth-time.yaml"]
    assert [str(e) for e in errors] == ["questions/binary.yaml, file: contains binary data"]
