"""Figures of chapters 03 and 04, each computed from ``content.physics`` when the page renders.

``serving_roofline_html()``: chapter 03's running example (Llama-3-8B in bf16 on an H100) on
the roofline, decode at batch 1, at the batch its memory holds (the chapter's one operating
point), the attention kernels that read the KV caches (one point
whatever the batch), and one 2,000-token prefill.  Each point's intensity is its kernels'
FLOPs over the bytes they read, as the chapter computes them; the chart and its table
are the roofline chart's own (``courseware.charts``).

``format_bits_html()``: chapter 04's bit layouts, one row of sign, exponent and mantissa cells
per format, from the dtype catalog, with each format's largest finite value.

Each figure names its sources under its caption (``figure_sources``): the catalog sources of
the figures it draws, which the chapter's own list does not see (a figure is rendered after
the chapter's live expressions).
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from contextvars import ContextVar

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    arithmetic_intensity,
    critical_batch_size,
    decode_attention_intensity,
    decode_weight_bytes,
    dtype,
    format_number,
    forward_flops_per_token,
    max_batch_for_memory,
    model,
    source,
)
from content.physics.catalog.sources import Source
from courseware.charts import chart_figure_html, roofline

MODEL, ACCELERATOR, DTYPE = "llama-3-8b", "h100-sxm", "bf16"
PROMPT, CONTEXT = 2000, 2500
FORMATS = ("fp32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "fp4-e2m1")
BIT = 18  # SVG units per bit
LABEL_WIDTH, VALUE_WIDTH, ROW = 96, 120, 34
# The phone's drawing: 8 units a bit and each largest value under its format's name, 360 units
# wide in all, so its text stays near its drawn size on a 390 px screen (as the roofline's).
NARROW_BIT, NARROW_ROW = 8, 40


def figure_sources(*found) -> list[Source]:
    """The sources of ``found`` (catalog entries, whose ``citations()`` are taken, or sources),
    each once, in order."""
    out: list[Source] = []
    for item in found:
        for cited in item.citations() if hasattr(item, "citations") else (item,):
            if cited not in out:
                out.append(cited)
    return out


# The sources every figure drawn inside ``recording_figure_sources`` listed: the chapter's
# "Sources" holds them beside its text's (F-10: the figures' figures are the chapter's too).
_DRAWN: ContextVar[list[Source] | None] = ContextVar("figure_sources_drawn", default=None)


@contextmanager
def recording_figure_sources():
    """Collect the sources of the figures drawn in the block, in order, each once."""
    drawn: list[Source] = []
    token = _DRAWN.set(drawn)
    try:
        yield drawn
    finally:
        _DRAWN.reset(token)


def sources_html(found: list[Source]) -> SafeString:
    drawn = _DRAWN.get()
    if drawn is not None:
        drawn.extend(s for s in dict.fromkeys(found) if s not in drawn)
    return render_to_string("courseware/_figure_sources.html", {"sources": found})


def serving_sources() -> list[Source]:
    """The H100's peak and bandwidth and the model's shape (the L2 slope left with bk-c2)."""
    part = accelerator(ACCELERATOR)
    keys = (part.source_key(f"peak_flops.{DTYPE}"), part.source_key("memory_bandwidth"))
    return figure_sources(*(source(k) for k in keys if k), model(MODEL))


def serving_points() -> list[tuple[str, float, None]]:
    """(label, intensity, None): each point on the roof at its intensity.  Decode reads every
    weight but the input embedding table (``decode_weight_bytes``); prefill multiplies by the
    same weights (``forward_flops_per_token``) over the same bytes, so its intensity is the
    prompt's length, as the chapter's text says (seventh review, F-5)."""
    # The table lookup does no multiply-adds: one FLOP count for both phases.
    flops = forward_flops_per_token(MODEL)
    weights = decode_weight_bytes(MODEL, DTYPE)
    # The chapter's one operating point (eighth pass, F-7): as many conversations as memory holds.
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    points = [("decode, batch 1", arithmetic_intensity(flops, weights))]
    # The critical batch's matmuls sit on the ridge itself, which the chart marks: no point of
    # their own, whose "memory-bound" by a hair read as a contradiction (fresh-eyes edit, bk-c2).
    points.append((f"decode matmuls, batch {batch}", arithmetic_intensity(flops * batch, weights)))
    # The caches are read by the attention kernels, which run after the matmuls, not beside
    # them: a point of their own, whatever the batch (ninth pass, bk-c; eighth review of 03-05,
    # H-1: one point for the whole pass averaged 174 and 4 FLOP/byte into a 39 neither kernel
    # runs at).
    points.append(("decode attention, any batch", decode_attention_intensity(MODEL, DTYPE)))
    points.append(
        (
            f"prefill, {PROMPT:,} tokens",
            arithmetic_intensity(flops * PROMPT, weights),
        )
    )
    return [(label, intensity, None) for label, intensity in points]


def serving_roofline_html() -> SafeString:
    # The fp32 lanes' ceiling and the L2 slope are chapter 02's (fresh-eyes edit, bk-c2), and
    # the table folds away like the chapter's other figures'.
    chart = roofline(ACCELERATOR, DTYPE, serving_points(), examples=False)
    figure = chart_figure_html(dataclasses.replace(chart, ceilings=(), slopes=()), collapsed=True)
    return render_to_string(
        "courseware/_book_figure.html",
        {
            "class": "serving-roofline",
            "figure": figure,
            "caption": (
                f"{model(MODEL).name} in bf16 on the H100's roofline. Batching moves the decode "
                f"matmuls right along the slope; the attention kernels, which read each "
                f"sequence's KV cache, stay far left whatever the batch; the matmuls reach the "
                f"ridge at the critical batch, {int(critical_batch_size(ACCELERATOR, DTYPE))}, "
                f"and a prefill of {PROMPT:,} tokens sits past it."
            ),
            "sources": sources_html(serving_sources()),
        },
    )


def _bits(count: int, kind: str) -> str:
    return f"{count} {kind} bit{'' if count == 1 else 's'}"


def _largest(value: float) -> str:
    """Exact while it is a whole number a reader can check (65,504, 448), else 3 figures."""
    if value == int(value) and value < 1e6:
        return f"{int(value):,}"
    return format_number(value, 3)


def format_rows(bit: int = BIT, row_height: int = ROW) -> list[dict]:
    """One row per format: its bits as classed cells, and its largest finite value."""
    rows = []
    widest = max(dtype(name).bits for name in FORMATS)
    for i, name in enumerate(FORMATS):
        fmt = dtype(name)
        kinds = ["sign"] + ["exponent"] * fmt.exponent_bits + ["mantissa"] * fmt.mantissa_bits
        if len(kinds) != fmt.bits:
            raise ValueError(f"{name}: 1 + {fmt.exponent_bits} + {fmt.mantissa_bits} bits")
        y = 30 + i * row_height
        cells = [{"x": LABEL_WIDTH + j * bit, "kind": kind} for j, kind in enumerate(kinds)]
        rows.append(
            {
                "name": fmt.name,
                "y": y,
                "cells": cells,
                "value_x": LABEL_WIDTH + widest * bit + 12,
                "max": _largest(fmt.max_finite),
                "text": (
                    f"{fmt.name}: 1 sign bit, {_bits(fmt.exponent_bits, 'exponent')}, "
                    f"{_bits(fmt.mantissa_bits, 'mantissa')}; largest finite value "
                    f"{_largest(fmt.max_finite)}"
                ),
            }
        )
    return rows


def format_bits_html() -> SafeString:
    """The bit layouts in two drawings, one shown by CSS: the wide one with the largest values
    in a column of their own, and the phone's with each under its format's name."""
    widest = max(dtype(name).bits for name in FORMATS)
    rows = format_rows()
    context = {
        "rows": rows,
        "id": "format-bits",
        "cell": BIT - 2,
        "width": LABEL_WIDTH + widest * BIT + VALUE_WIDTH,
        "height": 30 + len(rows) * ROW + 6,
        "max_x": LABEL_WIDTH + widest * BIT + 12,
        "description": "; ".join(r["text"] for r in rows) + ".",
    }
    narrow = format_rows(NARROW_BIT, NARROW_ROW)
    context["narrow_svg"] = render_to_string(
        "courseware/_format_bits_svg.html",
        dict(
            context,
            rows=narrow,
            id="format-bits-narrow",
            narrow=True,
            cell=NARROW_BIT - 2,
            width=LABEL_WIDTH + widest * NARROW_BIT + 8,
            height=30 + len(narrow) * NARROW_ROW,
        ),
    )
    context["sources"] = sources_html(figure_sources(*(dtype(name) for name in FORMATS)))
    return render_to_string("courseware/_format_bits.html", context)
