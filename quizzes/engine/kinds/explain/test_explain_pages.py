"""The written-explanation kind on the pages: a labelled text area (student page and studio
alike), a submission stored as text and awaiting grading (no score, not 0), an exam's saved
text read back and kept, the results page's "Your answer" escaped, the answer key (model answer
and rubric) only after release, the studio's preview."""

from __future__ import annotations

from pathlib import Path

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> **bold** $x$'


def test_the_input_is_a_labelled_text_area_with_the_parts_limit(kind_site):
    taking = kind_site.homework(STARTER)
    html = taking.page()
    assert '<textarea class="answer-input explain-input"' in html
    assert 'maxlength="1500"' in html
    assert "Plain text, at most 1500 characters." in html
    assert ">Your explanation</label>" in html
    # The rubric and the model answer are the answer key: never on the student's page.
    assert "Every step reads all the weights" not in html
    assert "Each step reads all" not in html


def test_a_submission_awaits_grading_and_scores_nothing_yet(kind_site):
    taking = kind_site.homework(STARTER)
    fragment = taking.check("why", "The weights are read once per token.")
    assert "Awaiting grading" in fragment
    assert taking.responses() == [("pending", 0.0, "", "The weights are read once per token.")]
    # One submission: the part is final, a second is refused and stores nothing.
    again = taking.check("why", "Another go.")
    assert "finished" in again
    assert len(taking.responses()) == 1
    # Asked once: no new numbers (another essay to grade) on the page.
    assert "Try again with new numbers" not in taking.page()


def test_an_answer_over_the_parts_limit_is_refused_and_stores_nothing(kind_site):
    taking = kind_site.homework(STARTER)
    fragment = taking.check("why", "x" * 1501)
    assert "1,501 characters long; the limit for this question is 1,500" in fragment
    assert taking.responses() == []


def test_html_in_an_answer_is_stored_as_text_and_shown_escaped(kind_site):
    taking = kind_site.homework(STARTER)
    taking.check("why", HOSTILE)
    taking.submit()
    html = taking.results()
    assert HOSTILE in [raw for *_, raw in taking.responses()]
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "Awaiting grading" in html
    assert "1 part awaiting grading by staff: this score may still rise." in html


def test_an_exam_keeps_the_text_reads_it_back_and_submits_it_for_grading(kind_site):
    taking = kind_site.exam(STARTER, time_limit_minutes=30)
    assert "No answer saved yet." in taking.save("why", "")
    assert "5 words saved; staff will grade it." in taking.save(
        "why", "Memory bandwidth sets the time.", sequence=2
    )
    assert "Memory bandwidth sets the time.</textarea>" in taking.page()
    taking.submit()
    assert taking.responses() == [("pending", 0.0, "", "Memory bandwidth sets the time.")]
    assert taking.attempt.awaiting_grading == 1


def test_the_answer_key_shows_the_model_answer_and_rubric_only_after_release(kind_site):
    taking = kind_site.homework(STARTER, show_answers="after_submission")
    taking.check("why", "Because of bandwidth.")
    assert "a model answer:" not in taking.page()
    taking.submit()
    html = taking.results()
    assert "a model answer:" in html and "Each step reads all" in html
    assert "The rubric staff grade with:" in html and "Every step reads all the weights" in html


def test_the_studio_preview_draws_the_students_own_text_area(kind_site):
    studio = kind_site.studio(STARTER)
    html = studio.preview(2)
    assert 'name="response_why"' in html and "<textarea" in html
    # The answer line says what the rubric is; the stored structure is no "stored as" line
    # (it printed the rubric as a Python list of lists).
    assert "stored as" not in html and "[&#x27;" not in html and "['" not in html
    tried = studio.preview(2, tried="why", why="Bandwidth.")
    assert '<div class="feedback pending"' in tried
