"""Chapter 01's picture of the machine: an H100 from its SMs down to HBM and out to its links.

``h100_anatomy_html()`` draws, as an accessible SVG, the chip's grid of SMs with one SM opened
up (four sub-partitions around the shared L1/shared memory), the L2 cache all SMs share, the
HBM beneath it, and the two ways out: NVLink to the other GPUs and PCIe to the host.  Every
capacity and bandwidth is read from the catalog when the page renders (the accelerator's entry,
its measured memory hierarchy and its links), so the picture and the chapter's tables cannot
disagree.  The sub-partition layout (four per SM, 32 fp32 lanes and one tensor core each) is
the Hopper whitepaper's, as in the chapter's SM table.
"""

from __future__ import annotations

import math

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import accelerator, format_quantity, link, memory_hierarchy, source
from courseware.book_figures import figure_sources, sources_html
from courseware.chart_labels import measured_name

PART = "h100-sxm"
SUBPARTITIONS = 4  # per SM (Hopper whitepaper, "H100 SM architecture")
LANES = 32  # fp32 lanes per sub-partition
WIDTH, HEIGHT = 720, 470
GRID_X, GRID_Y, CELL, GAP = 24, 52, 13, 3
SM_X, SM_Y, SM_W, SM_H = 286, 30, 414, 178
FIELDS = (
    "sm_count",
    "registers_per_sm",
    "sram_per_sm_bytes",
    "l2_bytes",
    "memory_bytes",
    "memory_label_bytes",
    "memory_bandwidth",
    "links_per_gpu",
)


def _kib(value: float) -> str:
    return f"{value / 1024:,.0f} KiB"


def _mib(value: float) -> str:
    return f"{value / 2**20:,.0f} MiB"


def anatomy() -> dict:
    """The figure's boxes and labels, every figure from the catalog."""
    part = accelerator(PART)
    levels = memory_hierarchy(part)
    l1, l2, hbm = levels[1], levels[2], levels[3]
    nvlink, host = link(part.link), link(part.host_link)
    count = part.sm_count
    columns = 12
    rows = math.ceil(count / columns)
    cells = [
        {
            "x": GRID_X + (i % columns) * (CELL + GAP),
            "y": GRID_Y + (i // columns) * (CELL + GAP),
            "open": i == columns - 1,
        }
        for i in range(count)
    ]
    registers = part.registers_per_sm * 4  # 32-bit registers
    sub_w = (SM_W - 24 - (SUBPARTITIONS - 1) * 8) / SUBPARTITIONS
    subs = [
        {
            "x": SM_X + 12 + i * (sub_w + 8),
            "lines": (
                "warp scheduler",
                f"{LANES} fp32 lanes",
                "1 tensor core",
                f"{_kib(registers / SUBPARTITIONS)} registers",
            ),
        }
        for i in range(SUBPARTITIONS)
    ]
    # The bandwidth's part named from its catalog entry: "L2 (H200): about 10 TB/s" (F-6).
    l2_rate = f"{measured_name('L2', l2)}: about {format_quantity(l2.bandwidth, 'B/s')}"
    l2_text = f"L2 cache: {_mib(l2.size_bytes)}; {l2_rate}"
    hbm_text = (
        f"{hbm.name}: {format_quantity(part.memory_bytes, 'B', sig=3)} "
        f"(sold as {format_quantity(part.memory_label_bytes, 'B', sig=2)}), "
        f"{format_quantity(part.memory_bandwidth, 'B/s')}"
    )
    # The bandwidth is the GPU's total over all its links (a reader took it per link: C01-5).
    nvlink_text = (
        f"NVLink: {format_quantity(nvlink.bandwidth, 'B/s')} each way in all, over "
        f"{part.links_per_gpu} links"
    )
    host_text = f"PCIe to the host: {format_quantity(host.bandwidth, 'B/s')} each way"
    sm_text = f"{_kib(part.sram_per_sm_bytes)} L1 cache and shared memory, shared by the four"
    description = (
        f"The {part.name}: {count} streaming multiprocessors (SMs). Each SM has "
        f"{SUBPARTITIONS} sub-partitions, each with a warp scheduler, {LANES} fp32 lanes, one "
        f"tensor core and {_kib(registers / SUBPARTITIONS)} of registers, around "
        f"{_kib(part.sram_per_sm_bytes)} of L1 cache and shared memory. All SMs share the "
        f"{_mib(l2.size_bytes)} L2 cache ({l2_rate}, measured), which sits in front of "
        f"{hbm_text}. Two links leave the chip: {nvlink_text}, to the other GPUs of the server, "
        f"and {host_text}."
    )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "cells": cells,
        "cell": CELL,
        "grid_label": f"{count} SMs",
        "grid_bottom": GRID_Y + rows * (CELL + GAP) + 14,
        "sm": {"x": SM_X, "y": SM_Y, "w": SM_W, "h": SM_H},
        "sub_w": sub_w,
        "subs": subs,
        "sm_text": sm_text,
        "l1_bandwidth": format_quantity(l1.bandwidth, "B/s") if l1.bandwidth else None,
        "l2_text": l2_text,
        "hbm_text": hbm_text,
        "nvlink_text": nvlink_text,
        "host_text": host_text,
        "description": description,
        "title": f"Anatomy of the {part.name}",
        "found": figure_sources(
            *(source(k) for k in dict.fromkeys(part.source_key(f) for f in FIELDS) if k),
            *(l2.citations() if l2.bandwidth else ()),
            nvlink,
            host,
        ),
        "open": cells[columns - 1],
    }


# The phone's drawing (issue 29): the same parts stacked in a 360-unit column, so the text keeps
# about its drawn size on a 390 px screen; the opened SM is the grid's last, just above its box.
NARROW_WIDTH, NARROW_CELL, NARROW_GAP, NARROW_COLUMNS = 360, 11, 3, 12


def anatomy_narrow(wide: dict) -> dict:
    """The narrow drawing's boxes: the grid, the opened SM beneath it (sub-partitions two by
    two), then L2, HBM and the two links, each band's text wrapped to the column's width."""
    step = NARROW_CELL + NARROW_GAP
    count = len(wide["cells"])
    cells = [
        {"x": 18 + (i % NARROW_COLUMNS) * step, "y": 36 + (i // NARROW_COLUMNS) * step}
        for i in range(count)
    ]
    opened = cells[-1]
    grid_bottom = cells[-1]["y"] + NARROW_CELL
    sm_y = grid_bottom + 15
    sub_w = (324 - 24 - 8) / 2
    subs = [
        {"x": 30 + (i % 2) * (sub_w + 8), "y": sm_y + 28 + (i // 2) * 92, "lines": s["lines"]}
        for i, s in enumerate(wide["subs"])
    ]
    smem_y = sm_y + 28 + 2 * 92
    l2_y = smem_y + 44 + 12 + 12
    hbm_y = l2_y + 44 + 12 + 18
    nvlink_y = hbm_y + 36 + 14
    return {
        "width": NARROW_WIDTH,
        "height": nvlink_y + 44 + 10 + 36 + 6,
        "cells": cells,
        "open": opened,
        "cell": NARROW_CELL,
        "grid_label": wide["grid_label"],
        "sm": {"x": 18, "y": sm_y, "w": 324, "h": smem_y + 44 + 12 - sm_y},
        "sub_w": sub_w,
        "subs": subs,
        "smem_y": smem_y,
        "smem_lines": wide["sm_text"].split(", ", 1),
        "l2_y": l2_y,
        "l2_lines": [f"{wide['l2_text']},", "shared by all SMs"],
        "chip_h": l2_y + 44 + 10 - 8,
        "hbm_y": hbm_y,
        "hbm_text": wide["hbm_text"],
        "nvlink_y": nvlink_y,
        "nvlink_lines": wide["nvlink_text"].split(", ", 1),
        "host_y": nvlink_y + 54,
        "host_text": wide["host_text"],
        "title": wide["title"],
        "description": wide["description"],
    }


def h100_anatomy_html() -> SafeString:
    context = anatomy()
    context["sources"] = sources_html(context.pop("found"))
    context["narrow_svg"] = render_to_string(
        "courseware/_h100_anatomy_narrow.html", anatomy_narrow(context)
    )
    return render_to_string("courseware/_h100_anatomy.html", context)
