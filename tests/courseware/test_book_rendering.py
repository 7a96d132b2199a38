"""Rendering the book: live figures, MathML, anchors, contents, sources, directives, caching."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from content.expressions import ExpressionError
from content.physics import accelerator, format_quantity, ridge_point, source
from courseware.rendering import (
    ContentError,
    catalog_version,
    render_body,
    render_chapter_text,
    split_front_matter,
)

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"
CHAPTERS = sorted(BOOK.glob("*.md"))


@pytest.fixture(scope="module")
def rendered_book():
    return {path.name: render_chapter_text(path.read_text(), source=path.name) for path in CHAPTERS}


def test_the_book_has_chapters():
    assert len(CHAPTERS) >= 6


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_renders_without_leftover_template_syntax(path, rendered_book):
    html = rendered_book[path.name].html
    for leftover in ("{{", "}}", "{%", "%}", "$$"):
        assert leftover not in html, f"{path.name} still contains {leftover!r}"
    assert "<math" in html
    assert "math-source" not in html, "a formula fell back to its LaTeX source"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_has_contents_from_its_level_two_headings(path, rendered_book):
    chapter = rendered_book[path.name]
    body = split_front_matter(path.read_text()).body
    headings = [line for line in body.splitlines() if line.startswith("## ")]
    assert len(chapter.toc) == len(headings)
    for entry in chapter.toc:
        assert f'<h2 id="{entry.id}">' in chapter.html
        assert f'href="#{entry.id}"' in chapter.html


def test_sources_directive_lists_the_cited_catalog_entries(rendered_book):
    chapter = rendered_book["02-roofline.md"]
    part = accelerator("H100")
    # F-10 (eighth pass): the sources of the H100 figures the chapter prints, not all of the
    # part's (its compute-capability table, say, which the roofline never uses)
    used = {source(part.source_key(f)) for f in ("memory_bandwidth", "peak_flops.bf16")}
    listed = re.search(r'<ul class="catalog-sources">(.*?)</ul>', chapter.html, re.S).group(1)
    for cited in used:
        assert cited.url in listed
    # pre-02 (bk-b2): the tiling sentence prints the H100's shared memory per SM, so the CUDA
    # guide's table is cited now; a figure the chapter never prints still is not (the boost clock).
    assert source("cuda-guide-cc").url in listed
    assert source(part.source_key("boost_clock_hz")).url not in listed
    titles = re.findall(r"<li>(.*?)</li>", listed)
    assert len(titles) == len(set(titles)), "each source is listed once"


def test_roofline_directive_becomes_the_interactive_chart(rendered_book):
    html = rendered_book["02-roofline.md"].html
    # The interactive chart, and the running example's block on its own roofline (P02-1).
    # each chart in two drawings, the wide one and the phone's, one shown (issue 29); pre-02
    # (bk-b2): chapter 01's timeline of the block is the overhead regime's picture here too.
    assert html.count('role="img"') == 6
    assert html.count('class="chart-wide"') == html.count('class="chart-narrow"') == 3
    assert html.count("<select") >= 1 and html.count('hx-get="/roofline/"') == 1
    assert 'hx-get="/roofline/"' in html
    assert "<select" in html


def test_live_figures_match_the_physics_module(rendered_book):
    expected = format_quantity(ridge_point("H100", "bf16"), "FLOP/B")
    assert expected in rendered_book["02-roofline.md"].html


def test_explicit_heading_anchor_is_used_and_stripped():
    result = render_body("## Bits and bytes {#bits-and-bytes}\n\nText.\n")
    assert '<h2 id="bits-and-bytes">Bits and bytes' in result.html
    assert "{#" not in result.html
    assert [(e.id, e.text) for e in result.toc] == [("bits-and-bytes", "Bits and bytes")]


def test_heading_without_anchor_gets_a_slug_and_duplicates_differ():
    result = render_body("## The cost of a ring all-reduce\n\n## Notes\n\n## Notes\n")
    ids = [entry.id for entry in result.toc]
    assert ids == ["the-cost-of-a-ring-all-reduce", "notes", "notes-2"]


def test_leading_title_is_lifted_out_of_the_body():
    result = render_body("# The title\n\nFirst paragraph.\n")
    assert result.title == "The title"
    assert "<h1" not in result.html


def test_inline_and_display_math_become_mathml():
    result = render_body("Inline $x^2$ here.\n\n$$\n\\frac{a}{b}\n$$\n")
    assert 'display="inline"' in result.html
    assert 'display="block"' in result.html
    assert "<mfrac>" in result.html


def test_a_formula_latex2mathml_cannot_convert_shows_its_source_in_code():
    result = render_body("Broken $\\frac{$ and fine $y$.\n")
    assert '<code class="math-source"' in result.html
    assert "\\frac{" in result.html
    assert "<mi>y</mi>" in result.html


def test_worked_example_blockquote_is_a_callout_and_others_are_not():
    result = render_body("> **Worked example: a**\n>\n> b\n\n> A plain quote.\n")
    assert result.html.count('class="worked-example"') == 1


def test_wide_tables_sit_in_a_scrolling_box():
    result = render_body("| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert '<div class="table-scroll"' in result.html


def test_live_value_inside_math_gets_its_unit_as_text():
    result = render_body('$B = {{ accelerator("H100").memory_bandwidth | B/s }}$\n')
    assert "<mtext>TB/s</mtext>" in result.html


def test_expression_error_names_the_file_and_its_line():
    text = '---\nslug: x\ntitle: X\norder: 1\n---\n\nFine.\n\n{{ acelerator("H100") }}\n'
    with pytest.raises(ExpressionError) as caught:
        render_chapter_text(text, source="content/book/99-x.md")
    assert caught.value.source == "content/book/99-x.md"
    assert caught.value.line == 9
    assert "accelerator" in str(caught.value)  # the did-you-mean


def test_unknown_directive_is_refused_with_its_line():
    with pytest.raises(ContentError) as caught:
        render_body("One.\n\n{% quiz %}\n", source="c.md", first_line=10)
    assert caught.value.line == 12
    assert "quiz" in str(caught.value)


def test_directive_inside_a_sentence_is_refused():
    with pytest.raises(ContentError, match="own line"):
        render_body("See {% sources %} below.\n", source="c.md")


def test_front_matter_without_title_is_refused():
    with pytest.raises(ContentError, match="title"):
        split_front_matter("---\nslug: a\n---\nBody\n", source="a.md")


def test_front_matter_with_bad_yaml_names_its_line():
    with pytest.raises(ContentError) as caught:
        split_front_matter("---\nslug: a\ntitle: [unclosed\n---\n", source="a.md")
    assert caught.value.line in (3, 4)


def test_catalog_version_is_a_stable_fingerprint():
    assert catalog_version() == catalog_version()
    assert re.fullmatch(r"[0-9a-f]{16}", catalog_version())


def test_chapters_and_variants_name_the_catalog_by_one_fingerprint_of_its_figures(monkeypatch):
    from content.physics.catalog import snapshot as catalog_snapshot
    from quizzes.engine import generate_variant, load_template_file
    from tests.catalog_patching import patch_entry

    questions = BOOK.parent / "questions"
    template = load_template_file(
        questions / "examples" / "decode-step-memory-floor.yaml", root=questions.parent
    )
    before = catalog_version()
    assert before == catalog_snapshot.fingerprint()
    assert generate_variant(template, 1).catalog["fingerprint"] == before

    h100 = accelerator("H100")
    patch_entry(monkeypatch, "accelerator", h100.key, memory_bandwidth=h100.memory_bandwidth * 2)
    after = catalog_version()
    assert after != before  # a corrected figure is a new catalog state, with no restart
    assert after == catalog_snapshot.fingerprint()
    assert generate_variant(template, 1).catalog["fingerprint"] == after


def _table_after(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    return html[html.index("<table>", start) : html.index("</table>", start)]


def test_chapter_one_gives_on_chip_sizes_in_binary_units(rendered_book):
    html = rendered_book["01-gpus.md"].html
    # Second fresh-eyes edit (bk-a3): the table is reference (#ladder-numbers), and HBM's
    # capacity was binary like the rest of its column (79.6 GiB); since the ninth review (rv-1,
    # I-9) it is 85.5 GB, the figure the chapter's GPU table and hierarchy figure give.
    hierarchy = _table_after(html, "ladder-numbers")
    cells = re.findall(r"<td>(.*?)</td>", hierarchy)
    # registers and shared memory are both 256 KiB per SM; L2 is 50 MiB (six columns a row, the
    # fourth saying what kind of figure each bandwidth is: A01-3, fifth review; since the ninth
    # pass (G-6 of the eighth review's prose note) it names the part each bandwidth comes from).
    # Fresh-eyes edit (bk-a2): five columns a row; the part behind each bandwidth is in
    # [^ladder], no longer a column.
    assert cells[1] == cells[6] == "256 KiB"
    assert cells[11] == "50 MiB" and cells[16] == "85.5 GB"
    assert "H100, derived" not in cells and "H200, measured" not in cells
    assert "kB" not in hierarchy
    assert re.search(r"Each SM has about 256 KiB of SRAM", html)
    parts = re.findall(r"<td>(\d+ KiB)</td>\s*<td>(\d+ MiB)</td>", html)
    assert ("256 KiB", "50 MiB") in parts and ("192 KiB", "40 MiB") in parts


def test_live_figures_of_five_or_more_digits_print_with_thousands_separators(rendered_book):
    # Review R00-S2 and R03-S1: "81559 MiB" and "131072 tokens" read as typos in a book.
    intro, inference = rendered_book["00-intro.md"].html, rendered_book["03-inference.md"].html
    assert "81,559 MiB" in intro  # (the H200's 143,771 MiB left with question 3: P00-7)
    assert re.search(r"\b\d{1,3},\d{3} tokens/s", inference)  # the batch of 64's throughput
    assert "<mn>819,200</mn>" in inference  # in a formula: one MathML number
    # (The sources list quotes its titles verbatim, nvidia-smi's "81559 MiB" included.)
    body = intro.split('class="catalog-sources"')[0] + inference.split('class="catalog-sources"')[0]
    assert not re.search(r"(?<![\d,.#=-])\d{5,} (MiB|tokens)", body)
