"""Chapter 01's picture of the overhead regime: CPU launches against GPU kernels for one block.

``overhead_timeline_html()`` draws two timelines of one decoder block of the running example's
token (Llama-2-7B, fp16, one H100, a 1,024-token cache): issued eagerly at the expensive end of
Python dispatch, and replayed as one CUDA graph.  Each has a CPU lane (the launches) and a GPU
lane (the kernels).  A token launches one graph for all its blocks, so the graph row charges the
block its share of that launch, the launch ÷ the number of blocks, not the whole of it.  A kernel
starts when both its launch and the kernel before it are done, and lasts the catalog's per-node
cost plus its bytes at the H100's STREAM-dot bandwidth: the
``overhead`` module's model, drawn.  The twelve kernels per block are chapter 01's count; the
norms, rotary embedding, cache write, adds and activation move kilobytes and are drawn at the
node cost alone.  Every duration is computed when the page renders.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    achievable_bandwidth,
    decode_kernels,
    format_quantity,
    kv_cache_bytes,
    measurement,
    model,
)
from courseware.book_figures import figure_sources, sources_html

MODEL, PART, DTYPE_BYTES, CONTEXT = "llama-2-7b", "H100", 2, 1024
WIDTH, LEFT, RIGHT = 720, 150, 20
# The phone's drawing (issue 29): 360 units, the lanes named "CPU" and "GPU" in a narrow column,
# each row's end under its lanes, so nothing scrolls sideways or shrinks under 7 px.
NARROW_WIDTH, NARROW_LEFT = 360, 40
ROW_H, LANE_H, TOP = 118, 26, 34
EAGER_KEY = "launch/eager-cpu-high"


def block_kernels() -> list[tuple[str, float]]:
    """(name, bytes read) of the twelve kernels of one decoder block, in order."""
    m = model(MODEL)
    d, ffn, b = m.d_model, m.ffn_dim, DTYPE_BYTES
    kv_dim = m.n_kv_heads * m.head_dim
    cache = kv_cache_bytes(MODEL, CONTEXT, "fp16") / m.layers
    return [
        ("norm", 0.0),
        ("QKV projection", d * (d + 2 * kv_dim) * b),
        ("rotary", 0.0),
        ("cache write", 0.0),
        ("attention", cache),
        ("output projection", d * d * b),
        ("add", 0.0),
        ("norm", 0.0),
        ("gate and up", 2 * d * ffn * b),
        ("activation", 0.0),
        ("down projection", d * ffn * b),
        ("add", 0.0),
    ]


def _schedule(launch_ends: list[float], durations: list[float]) -> list[tuple[float, float]]:
    """(start, end) of each kernel: it starts once its launch and the previous kernel are done."""
    spans, free = [], 0.0
    for ready, length in zip(launch_ends, durations, strict=True):
        start = max(ready, free)
        free = start + length
        spans.append((start, free))
    return spans


def timeline(width: int = WIDTH, left: int = LEFT) -> dict:
    """Both scenarios' CPU and GPU spans in seconds, and their drawing in SVG units
    (``width``/``left``: the narrow drawing's frame)."""
    narrow = width < WIDTH
    node = measurement("launch/graph-node").value
    eager = measurement(EAGER_KEY).value
    graph = measurement("launch/graph").value
    graph_share = graph / model(MODEL).layers
    bandwidth = achievable_bandwidth(PART)
    kernels = block_kernels()
    durations = [node + nbytes / bandwidth for _, nbytes in kernels]
    count = len(kernels)
    eager_cpu = [(i * eager, (i + 1) * eager) for i in range(count)]
    eager_gpu = _schedule([end for _, end in eager_cpu], durations)
    graph_gpu = _schedule([graph_share] * count, durations)
    total = max(eager_gpu[-1][1], eager_cpu[-1][1])
    scale = (width - left - RIGHT) / total

    def box(span: tuple[float, float], y: int, cls: str) -> dict:
        return {
            "x": round(left + span[0] * scale, 1),
            "w": max(round((span[1] - span[0]) * scale, 1), 1.0),
            "y": y,
            "cls": cls,
        }

    rows = []
    for i, (label, cpu, gpu) in enumerate(
        (
            (f"eager, {format_quantity(eager, 's')} per launch", eager_cpu, eager_gpu),
            ("one CUDA graph", [(0.0, graph_share)], graph_gpu),
        )
    ):
        y = TOP + i * ROW_H
        end = gpu[-1][1]
        busy = sum(b - a for a, b in gpu)
        rows.append(
            {
                "label": label,
                "y": y,
                "cpu_y": y + 8,
                "gpu_y": y + 8 + LANE_H + 8,
                "cpu": [box(s, y + 8, "launch") for s in cpu],
                "gpu": [
                    box(s, y + 8 + LANE_H + 8, "kernel big" if nbytes else "kernel")
                    for s, (_, nbytes) in zip(gpu, kernels, strict=True)
                ],
                "end_x": round(left + end * scale, 1),
                # below the lanes in the narrow frame, where it met the row's own label
                "end_y": y + 8 + 2 * LANE_H + 8 + 16 if narrow else y,
                "end_text": f"block done: {format_quantity(end, 's')}",
                "idle": 1 - busy / end,
                "end": end,
            }
        )
    ticks = []
    step = 50e-6
    t = 0.0
    while t <= total + 1e-12:
        ticks.append({"x": round(left + t * scale, 1), "text": f"{t * 1e6:.0f} µs"})
        t += step
    eager_row, graph_row = rows
    title = "One decoder block's launches and kernels, eager against one CUDA graph"
    description = (
        f"Two timelines of the twelve kernels of one Llama-2-7B decoder block on an H100 with a "
        f"1,024-token cache. Eager, each launch costs the CPU {format_quantity(eager, 's')}; the "
        f"GPU finishes most kernels before the next launch arrives and sits idle "
        f"{eager_row['idle']:.0%} of the time; the block takes "
        f"{format_quantity(eager_row['end'], 's')}. As one CUDA graph, the token's single "
        f"{format_quantity(graph, 's')} launch is shared by its {model(MODEL).layers} blocks, "
        f"so this block's share is {format_quantity(graph_share, 's')} and its kernels run back "
        f"to back; the block takes {format_quantity(graph_row['end'], 's')}. "
        "The four projections are the "
        f"long kernels; the norms, adds, rotary embedding and activation are slivers."
    )
    return {
        "graph_share": graph_share,
        "width": width,
        "height": TOP + 2 * ROW_H,
        "left": left,
        "id": "overhead-timeline-narrow" if narrow else "overhead-timeline",
        "lanes": ("CPU", "GPU") if narrow else ("CPU: launches", "GPU: kernels"),
        "rows": rows,
        "ticks": ticks,
        "axis_y": TOP + 2 * ROW_H - 22,
        "title": title,
        "description": description,
        "found": figure_sources(
            measurement(EAGER_KEY),
            measurement("launch/graph"),
            measurement("launch/graph-node"),
            measurement("h100-sxm/stream-dot"),
            model(MODEL),
        ),
    }


def overhead_timeline_html() -> SafeString:
    context = timeline()
    context["sources"] = sources_html(context.pop("found"))
    context["eager_launch"] = format_quantity(measurement(EAGER_KEY).value, "s")
    context["graph_launch"] = format_quantity(measurement("launch/graph").value, "s")
    context["graph_share"] = format_quantity(context["graph_share"], "s")
    context["blocks"] = model(MODEL).layers
    # the eager token is its launches: the tail after a block's last launch overlaps the next
    # block's launches (ninth review, I-7), so 32 × the block overstates it
    context["token_kernels"] = f"{decode_kernels(MODEL):,}"
    context["token_eager"] = format_quantity(
        decode_kernels(MODEL) * measurement(EAGER_KEY).value, "s"
    )
    context["narrow_svg"] = render_to_string(
        "courseware/_overhead_timeline_svg.html", timeline(NARROW_WIDTH, NARROW_LEFT)
    )
    return render_to_string("courseware/_overhead_timeline.html", context)


def block_timeline_html() -> SafeString:
    """The same drawing for chapter 02's overhead regime, captioned in that chapter's terms (the
    block's elementwise kernels last their node cost, not their bytes) and without chapter 01's
    references to its own table (pre-02, bk-b2)."""
    context = timeline()
    context["sources"] = sources_html(context.pop("found"))
    context["narrow_svg"] = render_to_string(
        "courseware/_overhead_timeline_svg.html", timeline(NARROW_WIDTH, NARROW_LEFT)
    )
    eager = format_quantity(measurement(EAGER_KEY).value, "s")
    node = measurement("launch/graph-node").value
    graph = measurement("launch/graph").value
    kernels = len(block_kernels())
    # pre-02c: no figure for the block's time here; the napkin's per-block time is the one
    # the chapter uses after the floor, so the caption names the parts, not their sum
    context["caption"] = (
        f"Our block at decode on an H100, drawn to scale: its {kernels} kernels issued eagerly at "
        f"{eager} per launch (the dear end of HTA's range), then replayed as one CUDA graph. The "
        f"long bars are the four projections; the slivers are the elementwise kernels, each "
        f"lasting about its {format_quantity(node, 's')} node cost, not its bytes. Eager, the GPU "
        f"idles between kernels; as a graph, they run back to back, and the block takes its "
        f"bytes at the achieved bandwidth plus its launches: its share of the token's one "
        f"{format_quantity(graph, 's')} graph launch and {kernels} node costs. The graph's costs "
        f"were measured on a consumer card."
    )
    return render_to_string("courseware/_overhead_timeline.html", context)
