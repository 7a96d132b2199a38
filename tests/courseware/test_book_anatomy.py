"""Chapter 01's anatomy of the H100 (P01-1 of the fourth prose review): every label read from
the catalog, accessible as text, placed where the memory hierarchy is taught."""

from __future__ import annotations

import re
from pathlib import Path

from content.physics import accelerator, format_quantity, link, memory_hierarchy
from courseware.book_anatomy import anatomy, h100_anatomy_html
from courseware.rendering import render_chapter_text


def test_every_figure_in_the_picture_is_the_catalogs():
    part = accelerator("H100")
    figure = anatomy()
    assert len(figure["cells"]) == part.sm_count == 132
    assert sum(c["open"] for c in figure["cells"]) == 1
    registers = part.registers_per_sm * 4 // 4  # four sub-partitions of 32-bit registers
    assert all(f"{registers // 1024} KiB registers" in s["lines"] for s in figure["subs"])
    assert len(figure["subs"]) == 4
    assert figure["sm_text"].startswith(f"{part.sram_per_sm_bytes // 1024:.0f} KiB L1")
    l2 = memory_hierarchy(part)[2]
    assert f"{l2.size_bytes / 2**20:.0f} MiB" in figure["l2_text"]
    assert format_quantity(l2.bandwidth, "B/s") in figure["l2_text"]
    assert format_quantity(part.memory_bandwidth, "B/s") in figure["hbm_text"]
    assert format_quantity(part.memory_bytes, "B", sig=3) in figure["hbm_text"]
    assert format_quantity(link(part.link).bandwidth, "B/s") in figure["nvlink_text"]
    assert f"{part.links_per_gpu} links" in figure["nvlink_text"]
    assert format_quantity(link(part.host_link).bandwidth, "B/s") in figure["host_text"]


def test_the_picture_is_an_image_with_a_text_description_and_its_sources():
    html = str(h100_anatomy_html())
    # two drawings, the wide one and the phone's column, one shown by CSS (issue 29)
    assert html.count('role="img"') == 2
    assert 'aria-labelledby="h100-anatomy-title h100-anatomy-desc"' in html
    assert 'aria-labelledby="h100-anatomy-narrow-title h100-anatomy-narrow-desc"' in html
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", html, re.S).group(1)
    for word in ("132 streaming multiprocessors", "tensor core", "L2 cache", "HBM3", "NVLink"):
        assert word in desc
    assert "gpu-benches" in html  # the measured L2 bandwidth's source
    assert "nvidia.com" in html


def test_chapter_01_shows_the_picture_in_the_memory_hierarchy_not_an_ascii_ladder():
    name = "01-gpus.md"
    html = str(render_chapter_text(Path(f"content/book/{name}").read_text(), source=name).html)
    section = html.split('id="memory-hierarchy"')[1].split('id="registers"')[0]
    assert "h100-anatomy" in section
    assert "faster, smaller, more private" not in html
