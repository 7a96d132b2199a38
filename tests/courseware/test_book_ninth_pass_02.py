"""Chapter 02, ninth pass (bk-b): the eighth review's prose finding
(docs/reviews/book-00-02-eighth.md,
section 5: "three chapters' worth of material ... with no single picture per regime; terms drift").

The main text is one argument on the running block: the roofline and its ridge, the three regimes
with one picture each, attention in one section with one table of the ways the cache is cut, and a
short floor-to-forecast subsection. Reference material lives after the questions under anchors
that links still reach. Each test fails on the text before this pass.
"""

from __future__ import annotations

import re

from courseware.rendering import heading_anchors, render_chapter_text, split_front_matter
from tests.courseware.book_text import BOOK, chapter_text

# Rendered words before "Key takeaways" as the eighth review read the chapter (fb6c9f5).
MAIN_TEXT_BEFORE = 6641

MOVED = (
    "vector-addition",
    "matmul-family",
    "softmax",
    "attention-traffic",
    "attention-variants",
    "wave-reuse",
    "predicting-a-matmul",
    "measured-ceilings",
    "by-the-numbers",
)


def _source() -> str:
    return (BOOK / "02-roofline.md").read_text()


def _html() -> str:
    return render_chapter_text(_source(), source="02-roofline.md").html


def _main_text() -> str:
    return chapter_text("02-roofline.md").split("Key takeaways", 1)[0]


def test_the_main_text_is_at_least_a_third_shorter():
    assert len(_main_text().split()) <= 2 / 3 * MAIN_TEXT_BEFORE


def test_reference_material_sits_after_the_questions_under_its_anchors():
    html = _html()
    before, reference = html.split('id="reference"', 1)
    assert 'id="check-your-understanding"' in before
    for anchor in MOVED:
        assert f'id="{anchor}"' in reference, anchor
        assert f'id="{anchor}"' not in before, anchor


def test_every_link_within_the_chapter_lands_on_a_heading():
    anchors = set(heading_anchors(split_front_matter(_source()).body))
    linked = set(re.findall(r"\]\(#([a-z0-9-]+)\)", _source()))
    for path in BOOK.glob("*.md"):
        linked |= set(re.findall(r"/chapters/roofline/#([a-z0-9-]+)", path.read_text()))
    assert linked <= anchors, linked - anchors


def test_one_picture_per_regime_on_the_running_block():
    html = _html().split('id="key-takeaways"', 1)[0]
    for anchor in ("regimes", "memory-bound", "compute-bound", "overhead-bound"):
        assert f'id="{anchor}"' in html, anchor
    main = _main_text()
    # pre-02b (bk-b3): the undrawn pipe and factory are gone; each regime points at its
    # numbered point on the block's chart, which opens the regimes section.
    assert "factory" not in main and "pipe" not in main
    assert "These are points 1 and 2, on the slope" in main
    assert "point 4, under the flat roof" in main
    assert "Chapter 1's timeline of this block draws both" in main
    # The step-by-step traffic models and the long worked kernels are reference now.
    assert "Worked example: one layer of Llama-2-7B reads a 1,024-token prompt" not in main
    assert "Worked example: adding two vectors on an H100" not in main
    assert "Worked example: predicting a measured matrix product" not in main


def test_the_ways_to_cut_the_cache_are_one_sentence_in_the_attention_section():
    # pre-02 (bk-b2): the survey table moved to the reference section (#attention-variants), where
    # each row is one model and the window and fp8 rows say what their figures come from.
    html = _html()
    attention = html.split('id="attention"', 1)[1].split('id="one-block"', 1)[0]
    assert "<table" not in attention.split("What moves an operating point", 1)[0]
    main = _main_text()
    assert "which divides the bytes by $h / h_{kv}$" in _source() or "divides the bytes by" in main
    assert (
        "only latent attention, one cached latent for all heads, brings decode attention near"
        in main
    )
    variants = html.split('id="attention-variants"', 1)[1].split('id="wave-reuse"', 1)[0]
    for design in ("Llama-2-7B", "Llama-3-8B", "Llama-3-70B, fp8 cache", "DeepSeek-V3 (latent)"):
        assert design in variants, design
    assert "A sliding window" in variants and "cuts nothing at our 1,024 tokens" in variants


def test_floor_recipe_forecast_have_one_meaning_each():
    # pre-02 (bk-b2): the main text names a time "floor" (datasheet) or "at achieved rates";
    # "forecast" appears only in the napkin, defined there in one clause; "recipe" not at all.
    main = _main_text()
    assert "Priced at achieved rates instead" in main
    assert "recipe" not in main.lower()
    before_napkin = main.split("The napkin: a token at three batch sizes", 1)[0]
    assert "forecast" not in before_napkin.lower()
    assert "This section adds one term, the forecast" in main
    assert "is its operating point" in main
    text = chapter_text("02-roofline.md")
    # A kernel's time is a recipe or a prediction, never a forecast (G-18's drift).
    assert "Forecast its time" not in text and "Forecast a 2048" not in text
    assert "the forecast is" not in text.split("Check your understanding", 1)[1]
