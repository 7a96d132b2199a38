"""Structure fixes of the fourth prose review (``docs/reviews/book-prose-fourth.md``) that are
about where a rule or a figure sits, not about a number: each test fails on the text before it."""

from __future__ import annotations

import re
from pathlib import Path

from courseware.rendering import render_chapter_text


def _html(name: str) -> str:
    return str(render_chapter_text(Path(f"content/book/{name}").read_text(), source=name).html)


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_p05_4_the_rule_comes_before_the_chart_and_the_crossovers_after():
    html = _html("05-interconnect.md")
    before, after = html.split('class="allreduce-figure"', 1)
    rule = "One rule picks the algorithm. Decode's all-reduces are kilobytes"
    assert rule in _text(before)
    assert "KiB the one-shot kernel's single step wins" not in _text(before)
    # pre-45 (bk-d2): after the chart the text says the crossings are the model's; the note
    # (after it too) gives them
    assert "The lines cross where the rule changes sides" in _text(after).split("When start-up")[0]
    assert "the one-shot kernel's single step wins" in _text(after)


def test_p05_2_the_moe_section_opens_on_its_thread_and_budgets_the_pass_in_a_table():
    text = _text(_html("05-interconnect.md"))
    section = text.split("Serving large mixture-of-experts models")[1]
    # ninth pass (bk-d, H-23): it opens on the chapter's argument, at DeepSeek's scale
    assert section.lstrip(" #").startswith("Expert parallelism is the same trade, with all-to-alls")
    table = section.split("per decode pass time")[1][:600]
    # D05-2 (seventh pass): the all-to-all at the service's shape, as a range
    for row in (
        "all-to-all, bandwidth-bound",
        "all-to-all, latency-bound",
    ):
        assert row in table
    assert "memory floor per GPU" in table and "measured pass" in table


def test_p00_5_the_ridge_section_is_titled_by_its_rule_and_p00_4_splits_the_two_levers():
    text = _text(_html("00-intro.md"))
    # Fresh-eyes edit (bk-a2): the rule is the section's first sentence; the heading names the
    # trend (its anchor already did) instead of repeating it word for word.
    assert "Compute outran bandwidth" in text
    assert "Every accelerator's tensor units need over a hundred FLOPs per byte" not in text
    assert (
        "every recent GPU needs over a hundred FLOPs per byte in 16-bit tensor arithmetic" in text
    )
    assert "The trend is not a law of every generation" not in text
    # Ninth pass: the two levers in one paragraph each sentence.
    assert "Batching is what moves the point right" in text
    # Third fresh-eyes edit (bk-a4): the MoE sentence left the batching paragraph; question 5
    # says it lowers the floor but not the FLOPs per byte.
    assert "It lowers the bytes, and so the time floor, per token at batch one" in text
    assert "It does not raise the FLOPs per byte" in text


def test_p02_9_one_block_opens_on_what_it_shows_and_keeps_its_scope_in_a_note():
    html = _html("02-roofline.md")
    section = html.split('id="one-block"')[1].split('id="napkin"')[0]
    opening = _text(section.split("block-roofline")[0])
    assert "in three phases: decode at batch 1 and 64, and prefill" in opening
    assert "elementwise kernels" not in opening
    # C02-3 (sixth review): the note counts them, per token and for the prompt.
    assert (
        "The elementwise kernels (norms, rotary embedding, residuals, activation) move about "
        "181 kB per token" in _text(html)
    )


def test_p01_2_the_four_ideas_are_the_chapters_sections():
    rendered = render_chapter_text(Path("content/book/01-gpus.md").read_text(), source="01-gpus.md")
    toc = [entry.text for entry in rendered.toc]
    assert toc[:4] == [
        "Idea 1: many simple workers",
        "Idea 2: more work in flight than the chip can finish",
        "Idea 3: a ladder of memories",
        "Idea 4: nothing runs until the CPU asks",
    ]
    html = str(rendered.html)
    # Occupancy is named with Little's law under idea 2, before the memory ladder of idea 3; its
    # worked tables are in the reference section since the eighth pass (E-15).
    idea2 = html.split('id="work-in-flight"')[1].split('id="ladder"')[0]
    assert 'href="#occupancy"' in idea2 and "Little" in idea2
    assert 'id="occupancy"' in html.split('id="reference"')[1]
    assert 'id="memory-hierarchy"' in html.split('id="ladder"')[1].split('id="cpu-asks"')[0]
    assert 'id="overhead"' in html.split('id="cpu-asks"')[1]


def test_p00_10_the_roadmap_says_where_each_opening_question_is_answered():
    html = _html("00-intro.md")
    roadmap = html.split("Roadmap of this part")[1].split('id="by-the-numbers"')[0]
    for target in ("#usable-memory", "/chapters/roofline/#one-block", "/chapters/precision/"):
        assert f'href="{target}"' in roadmap
    assert 'href="/chapters/inference/#batching"' in roadmap


def test_p01_3_the_cpu_comparison_runs_the_token_and_p01_9_explains_the_graph_tie():
    from content.physics import accelerator, weights_bytes

    text = _text(_html("01-gpus.md"))
    # Fresh-eyes edit (bk-a2): the token's bytes include its cache, as the introduction's floor
    # does (one value for the H100's batch-one floor), and in ms per token.
    from content.physics import format_quantity, kv_cache_bytes

    weights = weights_bytes("llama-2-7b", "bf16") + kv_cache_bytes("llama-2-7b", 1024, "bf16")
    cpu = weights / accelerator("EPYC 9654").memory_bandwidth
    gpu = weights / accelerator("H100").memory_bandwidth
    assert (
        f"the EPYC needs at least {format_quantity(cpu, 's')} against the H100's "
        f"{format_quantity(gpu, 's')}" in text
    )
    assert "249" not in text.split(" Sources ", 1)[0]
    assert cpu > 7 * gpu
    # A01-6 (fifth review): where the costs were measured is provenance: in the note, not the text.
    body, notes = text.split(" Sources ", 1)
    assert "measured on a consumer card, an RTX 5070 Ti" in notes
    # The overhead figure's source line names the card, as every figure names its sources.
    # Second fresh-eyes edit (bk-a3): the card is named beside the table, in one clause.
    # Third fresh-eyes edit (bk-a4): it is the note's alone; the lead says "orders of magnitude".
    assert "as measured on a laptop RTX 5070 Ti under WSL2" not in body
    # C01-2 (sixth review): that they were measured on a consumer card is said in [^launch]
    # since the fresh-eyes edit (bk-a2), which moved the eighth pass's column (E-12) there.
    assert "per node a Blackwell laptop card, WSL2" not in body
    # Eighth review (G-7): the stream row is the stream's best case, not a tie.
    # Fresh-eyes edit (bk-a2): the stream row is charged a measured gap, so it is no best case.
    assert "which the eager row pays" in text and " tie" not in text  # bk-a4


def test_p02_7_and_p02_8_the_napkin_labels_its_recipe_and_drops_the_duplicate_column():
    from content.physics import kv_cache_bytes, usable_memory_bytes, weights_bytes

    text = _text(_html("02-roofline.md"))
    napkin = text.split("The napkin: a token at three batch sizes")[1].split("Key takeaways")[0]
    # A02-7 (fifth review): the column is now chapter 01's checked forecast, and its lead says so.
    # Seventh review (E-1): one forecast at batch one, recipe-to-forecast ranges at 16 and 64.
    assert "step time (recipe)" not in napkin
    assert "This section adds one term, the forecast" in napkin
    assert "rougher rule" not in napkin  # C02-5: one method, not a third correction
    assert "Read the tokens per second as what a server as tight" not in napkin
    # pre-02 (bk-b2): the sentence that makes bytes per step the memory in use introduces the
    # table, and the share column, bytes per step over the budget, is gone.
    # pre-02c (bk-b4): "nearly", "roughly": held blocks and workspace are not all read.
    lead = napkin.split("batch bytes per step")[0]
    assert "A decode step reads nearly everything it holds" in lead
    assert "the bytes per step are roughly the memory in use" in lead
    assert "share of the serving budget" not in napkin
    held = weights_bytes("llama-2-7b", "bf16") + kv_cache_bytes("llama-2-7b", 1024, "bf16", 64)
    share = round(100 * held / usable_memory_bytes("H100"))
    assert f"{share}% $" not in napkin


def test_p01_7_the_on_chip_total_counts_the_registers_in_one_unit():
    from content.physics import accelerator, format_quantity, memory_hierarchy

    part = accelerator("H100")
    registers = memory_hierarchy(part)[0].size_bytes
    total = part.sm_count * (registers + part.sram_per_sm_bytes) + part.l2_bytes
    text = _text(_html("01-gpus.md"))
    # Eighth pass (E-15): one figure, in the L2 paragraph, beside our token's weights.
    assert f"L2 together, holds {format_quantity(total, 'B')}, and our token's weights" in text
    assert "just under a tenth of a gigabyte" not in text
    assert "on an H100, about a tenth of a gigabyte" in text  # the exercise's answer agrees


def test_p00_9_by_the_numbers_shows_the_ridge_it_teaches():
    from content.physics import ridge_point

    text = _text(_html("00-intro.md"))
    table = text.split("part year 16-bit peak bandwidth ridge point")[1].split("Ridge points are")[
        0
    ]
    assert f"3.35 TB/s {round(ridge_point('H100', 'bf16'))} 80 GB" in table
    assert f"900 GB/s {round(ridge_point('V100', 'fp16'))} 32 GB" in table
    notes = text.split("Ridge points are in FLOPs per byte.")[1][:400]
    assert "† The 32 GB part of 2018" in notes


def test_p01_6_the_tile_intensity_keeps_one_letter_and_links_the_derivation():
    html = _html("01-gpus.md")
    text = _text(html)
    assert "so r reuses yield" not in text
    assert "t / 2 multiply-adds, so t FLOPs, per 2-byte element, or t / 2 FLOPs per byte" in text
    assert 'href="/chapters/roofline/#tiling"' in html


def test_p04_8_reference_detail_moves_to_notes():
    html = _html("04-precision.md")
    body, notes = html.split('class="footnotes', 1)
    body_text, notes_text = _text(body), _text(notes)
    # pre-45 (bk-d2): the repeat is cut; the note sits on the first mention of the zero point
    assert "GPTQ and AWQ checkpoints both store a 4-bit zero point per group" not in body_text
    assert "and a packed 4-bit zero point: [" in body_text
    assert "AWQ is asymmetric" not in body_text and "AWQ is asymmetric" in notes_text
    assert "exponent bias one higher" not in body_text
    assert "its E4M3 tops out at 240" in notes_text


def test_p03_10_the_moe_section_recalls_chapter_00_and_moves_to_the_experts_batch():
    from content.physics import critical_batch_size, moe_critical_batch

    text = _text(_html("03-inference.md"))
    section = text.split("Worked example: an expert's critical batch")[1][:500]
    assert "Worked example: how quickly a batch reads every expert" not in text
    experts_batch = int(moe_critical_batch("mixtral-8x7b", "H100", "bf16"))
    assert f"{experts_batch:,} tokens on an H100" in section
    assert f"against {int(critical_batch_size('H100', 'bf16'))} for a dense model" in section


def test_fifth_review_errors_and_misleading_claims_are_fixed_in_the_text():
    gpus = _text(_html("01-gpus.md"))
    assert "1,979 TFLOP/s 2 ≈ 989 TFLOP/s" in gpus  # A01-1: the operand at four figures
    roofline = _text(_html("02-roofline.md"))
    assert "Mistral-7B v0.1" in roofline and "(Mistral-7B: " not in roofline  # A02-3
    inference = _text(_html("03-inference.md"))
    assert "Decode attention never turns compute-bound" not in inference  # B03-5
    assert "Latent attention is the exception" in inference
    precision = _text(_html("04-precision.md"))
    assert "and 4-bit activations still a research problem" not in precision  # B04-3
    assert "read fp8's 2× over bf16 as an upper bound" in precision  # B04-2
    interconnect = _text(_html("05-interconnect.md"))
    # B05-1, then B05-1 again in the sixth pass: the napkin is on chapter 04's forecast basis
    # (test_book_sixth_pass.py recomputes its figures)
    assert "plus its all-reduces" in interconnect.split("The napkin: our model across GPUs")[1]


def test_multi_gpu_fits_use_the_split_serving_level():
    from content.physics import format_quantity, spare_memory_bytes, usable_memory_bytes
    from content.physics import weights_bytes as wb

    alone, split = usable_memory_bytes("H100"), usable_memory_bytes("H100", gpus=2)
    assert split < alone  # each GPU of a split keeps vLLM's larger reserve
    intro = _text(_html("00-intro.md"))
    weights = wb("llama-2-70b", "fp16")
    # Ninth pass: the example ends on the GPU count; the spare room is question 3's subject.
    assert f"the engine's all-reduce), so it gives the model {format_quantity(split, 'B')}" in intro
    spare = spare_memory_bytes(weights, "H100", gpus=2)
    assert spare == 2 * split - weights
    interconnect = _text(_html("05-interconnect.md"))
    assert (
        f"H100s of {format_quantity(split, 'B', sig=3)} each, what a GPU of a split model can"
        in interconnect
    )
