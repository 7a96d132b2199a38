"""The eighth pass's book-wide fixes (book-r; docs/review.md, "Eighth pass: number formatting,
the L2 label, chapter-driven sources, chapters 04-05"): the one rule for digits as the chapters
print it, the L2 bandwidth labelled with the part it was measured on, each chapter's "Sources"
holding the sources of what it prints and draws, and chapters 04 and 05's style findings.
Each test fails on the tree before the pass."""

from __future__ import annotations

import re

import pytest

from content.physics import accelerator, memory_hierarchy, source
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, chapter_texts, q

H100 = accelerator("H100")


@pytest.fixture(scope="module")
def text():
    return chapter_texts(["00-intro.md", "02-roofline.md", "03-inference.md", "04-precision.md"])


# ---- the one rule for digits (E-19, C00-4, C02-4, F-8) --------------------------------------


def test_e19_a_prompt_of_1024_tokens_sits_at_1024_flop_per_byte(text):
    from courseware.book_rooflines import block_roofline_html

    # b = N: the projections' intensity is the prompt's length, exactly
    assert "1,024 FLOP/byte" in str(block_roofline_html())
    assert "1020 FLOP/byte" not in text["02-roofline.md"]
    assert "1,024 FLOP/byte" in text["02-roofline.md"]


def test_c00_4_c02_4_n_over_3_prints_the_figure_the_formula_gives(text):
    assert f"{q(4096 / 3, 'FLOP/B')}" == "1,365 FLOP/byte"
    for name in ("00-intro.md", "02-roofline.md"):
        assert "1,365 FLOP/byte" in text[name] and "1370 FLOP/byte" not in text[name]


def test_f8_four_digit_counts_take_their_comma_like_five_digit_ones(text):
    # "4096 wide and 14,336 tall" (chapter 03): one dimension printed two ways
    t = text["03-inference.md"]
    assert not re.search(r"(?<![\d,.$-])[1-9]\d{3}(?= wide| tall| prompt tokens| tokens)", t)
    assert "4,096" in t


def test_years_stay_bare_in_the_part_table(text):
    t = text["00-intro.md"]
    assert "2,022" not in t and "2022" in t


# ---- the L2 label (F-6, F-19) -------------------------------------------------------------


def test_f6_the_h100s_l2_bandwidth_names_the_part_it_was_measured_on():
    l2 = memory_hierarchy(H100)[2]
    assert l2.bandwidth == 10e12 and l2.measured_on == {"bandwidth": "h200"}
    # The label is read from the entry, never typed: another part gives another label.
    from courseware.chart_labels import measured_name

    moved = type(l2)(**{**l2.__dict__, "measured_on": {"bandwidth": "b200"}})
    assert measured_name("L2", moved) == "L2 (B200)"
    assert measured_name("L2", memory_hierarchy("A100")[2]) == "L2"


def test_f6_f19_every_l2_label_says_h200():
    from courseware.book_anatomy import anatomy
    from courseware.book_bars import staircase_rows
    from courseware.book_figures import serving_roofline_html

    roofline = str(serving_roofline_html())
    # bk-c2: chapter 03's roofline no longer draws the L2 slope (chapter 02's subject)
    assert "L2 (H200)" not in roofline and "L2: 10 TB/s" not in roofline
    row = next(r for r in staircase_rows() if r["name"].startswith("L2"))
    assert row["name"] == "L2 cache (H200)"
    assert "L2 (H200): about 10 TB/s" in anatomy()["l2_text"]


def test_a_measured_on_entry_must_give_the_figure_it_names():
    from content.physics.catalog.hierarchy import MEASURED, MeasuredLevel

    for entry in MEASURED.all():
        for figure, key in entry.measured_on.items():
            assert getattr(entry, figure) is not None
            assert accelerator(key).key != entry.part
    with pytest.raises(ValueError, match="measured_on"):
        MeasuredLevel(
            "h100-sxm",
            "l2",
            latency=1e-7,
            sources={"latency": "rrze-gpu-benches"},
            measured_on={"bandwidth": "h200"},
        )


# ---- sources lists, chapter-driven (F-10) ------------------------------------------------


def _listed(name: str) -> list[str]:
    html = str(render_chapter_text((BOOK / name).read_text(), source=name).html)
    block = html.split('class="catalog-sources"', 1)[1].split("</ul>", 1)[0]
    return re.findall(r"<li>(?:<a [^>]*>)?([^<]+)", block)


def _figure_sources(name: str) -> set[str]:
    html = str(render_chapter_text((BOOK / name).read_text(), source=name).html)
    html = html.split('class="catalog-sources"', 1)[0]
    found = set()
    for block in re.findall(r'class="figure-sources".*?</(?:ul|p)>', html, re.S):
        # a link into the page (the KV figure's pointer to the chapter's list, bk-c2) is no source
        found.update(re.findall(r'<a (?![^>]*href="#)[^>]*>([^<]+)</a>', block))
    return found


@pytest.mark.parametrize("key", ["google-bf16", "ieee-754", "nv-ada", "cuda-guide-cc"])
def test_f10_chapter_03_lists_no_source_it_does_not_use(key):
    title = source(key).title
    assert title not in _listed("03-inference.md")


@pytest.mark.parametrize(
    "name",
    [
        "00-intro.md",
        "01-gpus.md",
        "02-roofline.md",
        "03-inference.md",
        "04-precision.md",
        "05-interconnect.md",
    ],
)
def test_f10_a_chapters_list_holds_every_source_its_figures_draw_from(name):
    listed = set(_listed(name))
    assert _figure_sources(name) <= listed
    assert len(listed) == len(_listed(name))  # each once


def test_f10_a_field_read_cites_that_fields_source_alone():
    from content.expressions.live import render_live

    found = render_live('{{ accelerator("H100").memory_bandwidth | B/s }}').citations
    assert [s.key for s in found] == [H100.source_key("memory_bandwidth")]
    found = render_live('{{ accelerator("H100").name | text }}').citations
    assert found == ()
    found = render_live('{{ accelerator("H100").peak("bf16") | FLOP/s }}').citations
    assert [s.key for s in found] == [H100.source_key("peak_flops.bf16")]


# ---- chapters 04 and 05 (F-14, F-15, F-17, F-20, F-21) -----------------------------------


@pytest.fixture(scope="module")
def later():
    return chapter_texts(["04-precision.md", "05-interconnect.md"])


def _main(t: str) -> str:
    return t.split("Reference:", 1)[0]


def test_f14_the_napkin_compares_deployable_servers_only(later):
    t = later["04-precision.md"]
    napkin = t.split("The napkin: what a million tokens costs", 1)[1].split("By the numbers", 1)[0]
    assert "bf16 weights and cache, H100 2 " not in napkin and "foil" not in napkin
    assert "bf16 weights and cache, H100 4 " in napkin


def test_f15_the_accuracy_section_rests_on_the_running_model_and_kurtics_rules(later):
    t = later["04-precision.md"]
    main = _main(t)
    section = main.split("What accuracy it costs", 1)[1].split("Eight-bit arithmetic", 1)[0]
    # pre-45 (bk-d2): Llama-3.1 is the same architecture with more training
    # pre-45b (bk-d3): and why the transfer errs on the safe side
    # ninth review of 03-05 (J-6, bk-f): about the same pretraining, so the losses carry over
    assert "Their 70B model is Llama-3.1-70B, ours with the same architecture and about" in section
    assert "so its losses should carry over" in section
    assert "OPT-175B 8.34" not in section  # the papers' table is in the reference section
    reference = t.split("Reference: accuracy measured by the methods' papers", 1)[1]
    assert "GPTQ 4 / 16 OPT-175B 8.34 8.37 +0.03" in reference
    # QuaRot's loss is quoted live in the main text: 3.79 - 3.32 on Llama-2-70B
    assert "raises Llama-2-70B's perplexity by 0.5." in section


def test_f20_the_moe_main_line_keeps_the_argument_and_the_time_budget(later):
    t = later["05-interconnect.md"]
    section = _main(t).split("Serving large mixture-of-experts models", 1)[1]
    section = section.split("The napkin: our model across GPUs", 1)[0]
    # ninth pass (bk-d, H-23): the section opens on the chapter's argument at DeepSeek's scale
    # pre-45 (bk-d2): the same trade with all-to-alls, across servers (no "hundredfold")
    assert section.lstrip(" #").startswith("Expert parallelism is the same trade, with all-to-alls")
    # pre-45b (bk-d3): the time table moved to the reference; the box keeps its conclusion
    assert "per decode pass time" not in section
    assert "the network, not HBM, sets the pass" in section
    reference = t.split("Reference: DeepSeek-V3", 1)[1]
    assert "per decode pass time all-to-all, bandwidth-bound" in reference
    assert "attention split (tensor × groups)" not in section  # the units' table moved
    assert "Its service statistics let us check the arithmetic" not in section
    reference = t.split("Reference: DeepSeek-V3's deployment", 1)[1]
    assert "decode, 2024 40 320 4-way tensor × 80 1 64 GPUs " in reference
    assert "Its service statistics let us check the arithmetic" in reference


def test_f21_the_mi300x_paragraph_is_per_pair_and_the_note_says_why_the_mesh_matters(later):
    t = later["05-interconnect.md"]
    pair = q(448e9 / 7, "B/s")
    # ninth pass (bk-d): the MI300X's mesh, a side subject, moved into the note on it
    assert f"so one pair of GPUs talks at {pair} per direction" in t
    assert "all eight GPUs together get" not in t
    assert "one ring sends to one neighbour at a time and so runs at one link's rate" in t


def test_an_explicit_sig_is_the_authors_rounding_of_whole_digits_too():
    # Without sig a derived value keeps its whole digits (4096/3 is 1,365); an author's sig=2
    # beside "about" rounds them ("about 9,500 tokens", not "about 9,451 tokens").
    from content.expressions.live import render_live

    assert render_live("{{ 4096 / 3 }}").text == "1,365"
    assert render_live("about {{ 9451.3 | sig=2 }} tokens").text == "about 9,500 tokens"
    assert render_live("{{ 9451.3 | tokens | sig=2 }}").text == "9,500 tokens"
    assert render_live("{{ 15873.2 | FLOP/B | sig=3 }}").text == "15,900 FLOP/byte"
    # an exact count stays exact, whatever its type
    assert render_live("{{ 1024 | sig=2 }}").text == "1,024"
    assert render_live("{{ 2048 / 2 | FLOP/B | sig=2 }}").text == "1,024 FLOP/byte"
