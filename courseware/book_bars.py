"""Two bar figures of the book, computed from ``content.physics`` when the page renders.

``kv_memory_html()``: chapter 03's running example (Llama-3-8B in bf16 on one H100, each
conversation at 2,500 tokens) as stacked bars, weights plus KV cache, for growing batches,
against the serving level of usable memory (vLLM's share of the device).  The largest batch
that fits is the one ``max_batch_for_memory`` gives; one bar past it shows what does not.

``bandwidth_staircase_html()``: an H100's bandwidths from its shared memory to one network
port, on one logarithmic axis: the memory hierarchy's measured levels (``memory_hierarchy``),
the HBM datasheet rate, and the links' per-direction rates (``link``).  The register file's
bandwidth is not published, and the figure says so rather than drawing a guess.

Both draw labels above their bars in a narrow SVG (360 units wide), so a 390 px phone shows
them near full size; each carries a title, a description and the same numbers as a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    dtype,
    format_number,
    format_quantity,
    forward_flops_per_token,
    kv_cache_bytes,
    link,
    max_batch_for_memory,
    measurement,
    memory_hierarchy,
    model,
    source,
    usable_memory_bytes,
    weights_bytes,
)
from courseware.book_figures import figure_sources, sources_html
from courseware.chart_labels import measured_name

MODEL, ACCELERATOR, DTYPE, CONTEXT = "llama-3-8b", "h100-sxm", "bf16", 2500
WIDTH, LEFT, PLOT = 360, 4, 300  # SVG units: the bars run from LEFT to LEFT + PLOT
ROW, TOP = 42, 32


@dataclass(frozen=True)
class Segment:
    kind: str  # a CSS class: "weights", "cache", "level", "link", "network"
    x: float
    width: float


@dataclass(frozen=True)
class Bar:
    label: str
    value_text: str
    y: float
    segments: tuple[Segment, ...]
    end: float  # where the value text starts
    note: str = ""  # "does not fit", for the table and the description


def _gb(value: float) -> str:
    return format_quantity(value, "B", sig=3)


# ---- weights and KV cache against usable memory (chapter 03) -----------------------------


def kv_memory_rows() -> tuple[list[dict], float]:
    """One row per batch: weights, cache, total, and whether it fits; and the budget in bytes."""
    budget = usable_memory_bytes(ACCELERATOR)
    weights = weights_bytes(MODEL, DTYPE)
    largest = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    rows = []
    for batch in sorted({1, 32, 64, 128, largest, largest + 64}):
        cache = kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch)
        rows.append(
            {
                "batch": batch,
                "weights": weights,
                "cache": cache,
                "total": weights + cache,
                "fits": weights + cache <= budget,
                "largest": batch == largest,
            }
        )
    return rows, budget


def _linear(value: float, top: float) -> float:
    return LEFT + PLOT * value / top


def kv_memory_chart() -> dict:
    rows, budget = kv_memory_rows()
    top = 20e9 * math.ceil(max(max(r["total"] for r in rows), budget) * 1.02 / 20e9)
    bars = []
    for i, r in enumerate(rows):
        w_end, c_end = _linear(r["weights"], top), _linear(r["total"], top)
        label = f"batch {r['batch']}" + (", the largest that fits" if r["largest"] else "")
        bars.append(
            Bar(
                label=label,
                value_text=_gb(r["total"]),
                y=TOP + i * ROW,
                segments=(
                    Segment("weights", LEFT, w_end - LEFT),
                    Segment("cache" if r["fits"] else "cache over", w_end, c_end - w_end),
                ),
                end=c_end + 4,
                note="" if r["fits"] else "does not fit",
            )
        )
    ticks = [
        {"x": _linear(v, top), "text": format_quantity(v, "B", sig=2) if v else "0"}
        for v in range(0, int(top) + 1, int(top // 4))
    ]
    return {
        "bars": bars,
        "ticks": ticks,
        "line_x": _linear(budget, top),
        "line_text": f"serving budget {_gb(budget)}",
        "rows": rows,
        "budget": budget,
    }


def _kv_sources():
    part = accelerator(ACCELERATOR)
    keys = (part.source_key("memory_runtime_bytes") or part.source_key("memory_bytes"),)
    return figure_sources(
        model(MODEL),
        *(source(k) for k in keys if k),
        measurement("vllm-gpu-memory-utilization"),
        measurement("cuda-context"),
        measurement("vllm/activation-peak"),
    )


def kv_memory_html() -> SafeString:
    chart = kv_memory_chart()
    name = model(MODEL).name
    fits = [r for r in chart["rows"] if r["fits"]]
    description = (
        f"Stacked bars of {name}'s weights and KV cache in bf16, each conversation at "
        f"{CONTEXT:,} tokens, against an H100's serving budget of {_gb(chart['budget'])}. "
        + "; ".join(
            f"batch {r['batch']}: weights {_gb(r['weights'])}, cache {_gb(r['cache'])}, "
            f"total {_gb(r['total'])}{'' if r['fits'] else ', does not fit'}"
            for r in chart["rows"]
        )
        + "."
    )
    table = [
        [
            str(r["batch"]),
            _gb(r["weights"]),
            _gb(r["cache"]),
            _gb(r["total"]),
            "yes" if r["fits"] else "no",
        ]
        for r in chart["rows"]
    ]
    return render_to_string(
        "courseware/_bar_figure.html",
        {
            "id": "kv-memory",
            "class": "kv-memory",
            "height": TOP + len(chart["bars"]) * ROW + 20,
            "width": WIDTH,
            "title": f"{name} on one H100: weights and KV cache against the serving budget",
            "description": description,
            "chart": chart,
            "axis_y": TOP + len(chart["bars"]) * ROW - 6,
            "keys": [("weights", "weights"), ("cache", "KV cache"), ("cache over", "over budget")],
            "table_caption": f"{name}, bf16, conversations of {CONTEXT:,} tokens, one H100",
            "table_head": ["batch", "weights", "KV cache", "total", "fits the serving budget"],
            "table": table,
            "caption": (
                f"The weights are a fixed cost; each conversation adds its cache, "
                f"{_gb(kv_cache_bytes(MODEL, CONTEXT, DTYPE))}, until the bar reaches the "
                f"engine's budget at a batch of {max(r['batch'] for r in fits)}. "
                f"Past a few dozen conversations the cache, not the model, fills the GPU."
            ),
            "sources": _kv_sources_note(),
        },
    )


def _kv_sources_note() -> SafeString:
    """The figure's sources go to the chapter's list (recorded there by ``sources_html``); under
    the caption, a pointer: vLLM's profiling log filled a phone's screen (bk-c2's edit)."""
    sources_html(_kv_sources())
    return render_to_string("courseware/_figure_sources_pointer.html")


# ---- the bandwidth staircase (chapter 05) ------------------------------------------------


def staircase_rows() -> list[dict]:
    """(name, bytes/s, scope, kind, cited entry or source) from the fastest step down."""
    part = accelerator(ACCELERATOR)
    levels = {lvl.name: lvl for lvl in memory_hierarchy(part)}
    smem, l2 = levels["shared memory / L1"], levels["L2"]
    rows = [
        {"name": "registers", "bandwidth": None, "scope": "per SM", "kind": "level", "cited": ()},
        {
            "name": "shared memory / L1",
            "bandwidth": smem.bandwidth,
            # D05-6: derived (132 SMs x 128 B/clock x 1.83 GHz), not measured like the rest
            "scope": "all SMs together, derived",
            "kind": "level",
            "cited": (smem,),
        },
        {
            "name": measured_name("L2 cache", l2),
            "bandwidth": l2.bandwidth,
            "scope": "per GPU, measured",
            "kind": "level",
            "cited": (l2,),
        },
        {
            "name": "HBM3",
            "bandwidth": part.memory_bandwidth,
            "scope": "per GPU",
            "kind": "level",
            "cited": (source(part.source_key("memory_bandwidth")),),
        },
    ]
    for key, name, scope, kind in (
        ("nvlink4", "NVLink 4", "within a server, per direction", "link"),
        ("pcie5", "PCIe Gen5 x16", "GPU to host, per direction", "link"),
        ("ib-ndr", "InfiniBand NDR", "one 400 Gb/s port, per direction", "network"),
    ):
        lk = link(key)
        rows.append(
            {
                "name": name,
                "bandwidth": lk.bandwidth,
                "scope": scope,
                "kind": kind,
                "cited": (lk,),
            }
        )
    return rows


def _times(ratio: float) -> str:
    return "1× (fastest)" if ratio == 1 else f"{format_number(ratio, 2)}×"


LOG_LOW, LOG_HIGH = 10, 14  # 10 GB/s to 100 TB/s


def _log(value: float, high: int = LOG_HIGH) -> float:
    return LEFT + PLOT * (math.log10(value) - LOG_LOW) / (high - LOG_LOW)


def staircase_chart(*, from_hbm: bool = False) -> dict:
    """``from_hbm``: only the rungs from HBM down (chapter 05 draws the links beside HBM)."""
    rows = staircase_rows()
    high = LOG_HIGH
    if from_hbm:
        rows = rows[next(i for i, r in enumerate(rows) if r["name"] == "HBM3") :]
        high = LOG_HIGH - 1  # to 10 TB/s: nothing drawn is faster
    bars = []
    for i, r in enumerate(rows):
        y = TOP + i * ROW
        if r["bandwidth"] is None:
            bars.append(Bar(f"{r['name']}: not published", "", y, (), LEFT, "not published"))
            continue
        end = _log(r["bandwidth"], high)
        bars.append(
            Bar(
                label=r["name"] if r["kind"] != "level" else f"{r['name']}, {r['scope']}",
                value_text=format_quantity(r["bandwidth"], "B/s", sig=3),
                y=y,
                segments=(Segment(r["kind"], LEFT, end - LEFT),),
                end=end + 4,
            )
        )
    ticks = [
        {"x": _log(10.0**e, high), "text": format_quantity(10.0**e, "B/s", sig=1)}
        for e in range(LOG_LOW, high + 1)
    ]
    return {"bars": bars, "ticks": ticks, "line_x": None, "rows": rows}


TP_MODEL, TP_GPUS = "llama-3-70b", 8


def tensor_parallel_flops_per_byte(model_name: str = TP_MODEL, gpus: int = TP_GPUS) -> float:
    """FLOPs one GPU does per byte it sends in a tensor-parallel layer: its share of the layer's
    FLOPs per token over the two ring all-reduces of the token's bf16 hidden vector (chapter
    05's #link-ridge, worked through in #reference-prefill)."""
    m = model(model_name)
    flops = forward_flops_per_token(model_name) / m.layers / gpus
    sent = 2 * 2 * (gpus - 1) / gpus * m.d_model * dtype("bf16").bytes
    return flops / sent


def link_ridge_chart() -> dict:
    """The links alone (NVLink, PCIe, one network port) and a line at the bandwidth a
    tensor-parallel layer needs to keep the H100's bf16 tensor cores busy (pre-45b)."""
    chart = staircase_chart(from_hbm=True)
    kept = [i for i, r in enumerate(chart["rows"]) if r["kind"] != "level"]
    bars = []
    for n, i in enumerate(kept):
        bar = chart["bars"][i]
        bars.append(Bar(bar.label, bar.value_text, TOP + n * ROW, bar.segments, bar.end))
    need = accelerator(ACCELERATOR).peak("bf16") / tensor_parallel_flops_per_byte()
    return {
        "bars": bars,
        "ticks": chart["ticks"],
        "line_x": _log(need, LOG_HIGH - 1),
        "line_text": f"layer needs {format_quantity(need, 'B/s', sig=2)}",
        "rows": [chart["rows"][i] for i in kept],
        "need": need,
    }


def link_ridge_html() -> SafeString:
    """Chapter 05's wire ridge as a picture: which links clear a tensor-parallel layer's need."""
    chart = link_ridge_chart()
    need, rows = chart["need"], chart["rows"]
    intensity = tensor_parallel_flops_per_byte()
    table = [
        [r["name"], format_quantity(r["bandwidth"], "B/s", sig=3), f"{r['bandwidth'] / need:.2g}×"]
        for r in rows
    ]
    name = model(TP_MODEL).name
    passing = [r["name"] for r in rows if r["bandwidth"] > need]
    verdict = (
        f"only {passing[0]} does" if len(passing) == 1 else f"{', '.join(passing) or 'none'} do"
    )
    return render_to_string(
        "courseware/_bar_figure.html",
        {
            "id": "link-ridge",
            "class": "bandwidth-staircase link-ridge",
            "height": TOP + len(chart["bars"]) * ROW + 20,
            "width": WIDTH,
            "title": "Which links keep a tensor-parallel layer compute-bound",
            "description": (
                f"Per-direction bandwidth of each link on a logarithmic axis, against the "
                f"{format_quantity(need, 'B/s', sig=2)} a tensor-parallel layer of {name} on "
                f"{TP_GPUS} H100s needs: "
                + "; ".join(
                    f"{r['name']} {format_quantity(r['bandwidth'], 'B/s', sig=3)}" for r in rows
                )
            ),
            "chart": chart,
            "axis_y": TOP + len(chart["bars"]) * ROW - 6,
            "keys": [("link", "links"), ("network", "network")],
            "table_caption": "Each link against a tensor-parallel layer's need",
            "table_head": ["link", "bandwidth", "of the need"],
            "table": table,
            "caption": (
                f"The line is the H100's bf16 peak divided by the "
                f"~{format_number(intensity, 2, approx=True)} FLOPs a tensor-parallel layer of "
                f"{name} does per byte it sends on {TP_GPUS} GPUs. A link whose bar passes "
                f"it could hide the wire behind the compute if the schedule overlapped "
                f"them ({verdict}); Megatron's does not."
            ),
            "sources": sources_html(
                figure_sources(
                    source(accelerator(ACCELERATOR).source_key("peak_flops.bf16")),
                    model(TP_MODEL),
                    *(c for r in rows for c in r["cited"]),
                )
            ),
        },
    )


def link_staircase_html() -> SafeString:
    """Chapter 05's staircase: HBM, NVLink, PCIe and one network port (pre-45)."""
    return bandwidth_staircase_html(from_hbm=True)


def bandwidth_staircase_html(*, from_hbm: bool = False) -> SafeString:
    chart = staircase_chart(from_hbm=from_hbm)
    drawn = [r for r in chart["rows"] if r["bandwidth"]]
    description = (
        "Bandwidths of an H100 system on a logarithmic axis, fastest first: "
        + "; ".join(
            f"{r['name']} ({r['scope']}) {format_quantity(r['bandwidth'], 'B/s', sig=3)}"
            for r in drawn
        )
        + ("" if from_hbm else ". The register file's bandwidth is not published.")
    )
    table = [
        [
            r["name"],
            r["scope"],
            format_quantity(r["bandwidth"], "B/s", sig=3) if r["bandwidth"] else "not published",
            _times(drawn[0]["bandwidth"] / r["bandwidth"]) if r["bandwidth"] else "",
        ]
        for r in chart["rows"]
    ]
    first, last = drawn[0], drawn[-1]
    return render_to_string(
        "courseware/_bar_figure.html",
        {
            "id": "link-staircase" if from_hbm else "bandwidth-staircase",
            "class": "bandwidth-staircase",
            "height": TOP + len(chart["bars"]) * ROW + 20,
            "width": WIDTH,
            "title": (
                "From an H100's memory to its links, on a logarithmic axis"
                if from_hbm
                else "The bandwidth staircase of an H100 system, on a logarithmic axis"
            ),
            "description": description,
            "chart": chart,
            "axis_y": TOP + len(chart["bars"]) * ROW - 6,
            "keys": [("level", "on the GPU"), ("link", "links"), ("network", "network")],
            "table_caption": "An H100 system's bandwidths, fastest first",
            "table_head": ["step", "scope", "bandwidth", f"slower than {first['name']}"],
            "table": table,
            "caption": (
                f"Each step down is slower, and the steps are uneven: from {first['name']} to "
                f"{last['name']} the rate falls "
                f"{format_number(first['bandwidth'] / last['bandwidth'], 2)}-fold. Each "
                f"division of the axis is ten times the one before."
            ),
            "sources": sources_html(figure_sources(*(c for r in drawn for c in r["cited"]))),
        },
    )
