"""Chapter 03's serving pictures, computed from ``content.physics`` when the page renders.

``pass_time_html()``: one decode pass of the running example (Llama-3-8B in bf16 on an H100,
the batch its memory holds at 2,500 tokens) as a time bar: the weights' read, the caches' read,
and the arithmetic of the prompt tokens a pass must prefill in steady state.  The kernels run
one after another: the matmuls' arithmetic hides under the weights' read only, the caches are
read by the attention kernels after it (``decode_pass_time_by_kernel``; eighth review of 03-05,
H-1).  Two bars, the chapter's two names: the decode pass and the service's pass (bk-c3).

``request_bill_html()``: where one request's GPU time goes, its input tokens' and its output
tokens' (a share of 499 decode passes at the memory-limited batch), for our service (prompts in
the decode passes, paying what they add) and for a prompt on a GPU of its own.  Times are
roofline floors, as the cost section's prices are.

Both reuse the bar figure of ``courseware.book_bars`` (labels above the bars, a table of the
same numbers, sources under the caption).
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    critical_batch_size,
    decode_flops_per_token,
    decode_pass_time_by_kernel,
    decode_weight_bytes,
    format_number,
    format_quantity,
    kv_cache_bytes,
    max_batch_for_memory,
    model,
    prefill_time,
    source,
)
from courseware.book_bars import LEFT, PLOT, ROW, TOP, WIDTH, Bar, Segment
from courseware.book_figures import figure_sources, sources_html

MODEL, ACCELERATOR, DTYPE = "llama-3-8b", "h100-sxm", "bf16"
PROMPT, ANSWER, CONTEXT = 2000, 500, 2500


def operating_point() -> tuple[int, int]:
    """(batch, prompt tokens per pass): as many conversations as memory holds, and the prompt
    tokens a pass must prefill so that as many requests start as finish (each stays for
    ANSWER - 1 passes), as the chapter's chunked-prefill section counts them."""
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    return batch, round(PROMPT * batch / (ANSWER - 1))


def _ms(seconds: float, sig: int = 2) -> str:
    """Pass times to two figures, as the chapter prints them; the weights' read (the floor per
    token, 4.48 ms) to three, as the chapter prints that (sixth review, D03-8)."""
    return format_quantity(seconds, "s", sig=sig)


def _sources() -> list:
    part = accelerator(ACCELERATOR)
    keys = (part.source_key(f"peak_flops.{DTYPE}"), part.source_key("memory_bandwidth"))
    return figure_sources(*(source(k) for k in keys if k), model(MODEL))


def _bars(rows: list[tuple[str, list[tuple[str, float, float]]]], top: float) -> list[Bar]:
    """``rows``: (label, [(kind, start, duration)]) in seconds, drawn on a common scale."""
    scale = PLOT / top
    bars = []
    for i, (label, parts) in enumerate(rows):
        segments = tuple(Segment(kind, LEFT + start * scale, d * scale) for kind, start, d in parts)
        end = max(start + d for _, start, d in parts)
        bars.append(
            Bar(
                label=label,
                value_text=_ms(end),
                y=TOP + i * ROW,
                segments=segments,
                end=LEFT + end * scale + 4,
            )
        )
    return bars


def _ticks(top: float, step: float) -> list[dict]:
    count = int(top / step + 1e-9)
    return [
        {"x": LEFT + PLOT * k * step / top, "text": _ms(k * step) if k else "0"}
        for k in range(count + 1)
    ]


def _render(css: str, title: str, description: str, bars, ticks, keys, head, table, caption):
    chart = {"bars": bars, "ticks": ticks, "line_x": None}
    return render_to_string(
        "courseware/_bar_figure.html",
        {
            "id": css,
            "class": css,
            "height": TOP + len(bars) * ROW + 20,
            "width": WIDTH,
            "title": title,
            "description": description,
            "chart": chart,
            "axis_y": TOP + len(bars) * ROW - 6,
            "keys": keys,
            "table_caption": title,
            "table_head": head,
            "table": table,
            "caption": caption,
            "sources": sources_html(_sources()),
        },
    )


# ---- one pass, with and without a prefill chunk ------------------------------------------


def pass_time_rows() -> list[tuple[str, list[tuple[str, float, float]]]]:
    part = accelerator(ACCELERATOR)
    batch, prompts = operating_point()
    weights = decode_weight_bytes(MODEL, DTYPE) / part.memory_bandwidth
    caches = kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch) / part.memory_bandwidth
    per_token = decode_flops_per_token(MODEL) / part.peak(DTYPE)
    own, chunk = batch * per_token, (batch + prompts) * per_token
    if own > weights or chunk < weights or chunk > weights + caches:
        raise ValueError("the matmuls' regimes have moved: the picture's premise fails")
    memory = [("weights", 0.0, weights), ("cache", weights, caches)]
    # two bars, the chapter's two names for a pass: the decode pass and the service's pass (the
    # overlapped bound of an engine running attention beside matmuls is in no text: bk-c3, item 1)
    return [
        (f"the decode pass, {batch} conversations", [*memory, ("hidden", 0.0, own)]),
        (
            # about 700, as the chapter's load prints it (one number per quantity: pre-03c, 5)
            f"the service's pass, + about {float(f'{prompts:.2g}'):,.0f} prompt tokens",
            [
                ("weights", 0.0, weights),
                ("hidden", 0.0, weights),
                ("compute", weights, chunk - weights),
                ("cache", chunk, caches),
            ],
        ),
    ]


def pass_time_html() -> SafeString:
    rows = pass_time_rows()
    ends = [max(s + d for _, s, d in parts) for _, parts in rows]
    # ticks every 5 ms while they fit; past 20 ms their labels touch at the phone's width
    step = 5e-3 if max(ends) <= 20e-3 else 10e-3
    top = step * (int(max(ends) / step) + 1)
    name = model(MODEL).name
    title = f"One decode pass of {name} on an H100, with and without a prefill chunk"

    def total(kinds, parts):
        return sum(d for k, _, d in parts if k in kinds)

    table = [
        [
            label,
            _ms(total(("weights",), p), sig=3),
            _ms(total(("cache",), p), sig=3),
            _ms(total(("compute", "hidden"), p)),
            _ms(end),
        ]
        for (label, p), end in zip(rows, ends, strict=True)
    ]
    description = (
        f"{title}. "
        + "; ".join(
            f"{r[0]}: weights {r[1]}, caches {r[2]}, arithmetic {r[3]}, pass {r[4]}" for r in table
        )
        + "."
    )
    batch, prompts = operating_point()
    caption = (
        f"The prompt tokens a pass must prefill, about {float(f'{prompts:.2g}'):,.0f}, add work "
        f"chiefly to the matmuls; their "
        f"arithmetic outlasts the weights' read, and the decode pass grows to the service's "
        f"pass. Roofline floors at the datasheet peaks."
    )
    return _render(
        "pass-time",
        title,
        description,
        _bars(rows, top),
        _ticks(top, step),
        [
            ("weights", "weights read"),
            ("cache", "KV caches read"),
            ("hidden", "arithmetic, hidden"),
            ("compute", "arithmetic, exposed"),
        ],
        ["pass", "weights", "caches", "arithmetic", "pass time"],
        table,
        caption,
    )


# ---- pass time against batch (the chapter's central turn) -------------------------------


def pass_batch_rows() -> list[dict]:
    """One row per batch at 2,500 tokens a conversation, priced as ``decode_pass_time_by_kernel``
    prices a pass: the weights' read (flat), the matmuls' arithmetic under it, the caches' read
    (growing with the batch).  The batches: one, two in between, the most memory holds, and the
    critical batch, where the matmuls' arithmetic reaches the weights' read (fresh-eyes edit of
    chapter 03, bk-c2, item 4)."""
    part = accelerator(ACCELERATOR)
    largest = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    critical = int(critical_batch_size(ACCELERATOR, DTYPE))
    weights = decode_weight_bytes(MODEL, DTYPE) / part.memory_bandwidth
    per_token = decode_flops_per_token(MODEL) / part.peak(DTYPE)
    rows = []
    for batch in sorted({1, 64, 128, largest, critical}):
        caches = kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch) / part.memory_bandwidth
        arithmetic = batch * per_token
        rows.append(
            {
                "batch": batch,
                "weights": weights,
                "arithmetic": arithmetic,
                "caches": caches,
                "pass": decode_pass_time_by_kernel(MODEL, ACCELERATOR, DTYPE, batch, CONTEXT),
                "fits": batch <= largest,
                "largest": batch == largest,
                "critical": batch == critical,
            }
        )
    if not rows[-1]["critical"] or rows[-1]["fits"]:
        raise ValueError("the critical batch fits in memory: the picture's premise fails")
    return rows


def pass_batch_html() -> SafeString:
    rows = pass_batch_rows()
    largest = next(r["batch"] for r in rows if r["largest"])
    critical = next(r["batch"] for r in rows if r["critical"])
    step = 10e-3
    top = step * (int(max(r["pass"] for r in rows) / step) + 1)
    name = model(MODEL).name
    title = f"One decode pass of {name} on an H100 against the batch, at {CONTEXT:,} tokens"
    drawn = []
    for r in rows:
        label = f"batch {r['batch']}"
        if r["largest"]:
            label += ", the most memory holds"
        if r["critical"]:
            label += ", the critical batch: does not fit"
        parts = [
            ("weights", 0.0, r["weights"]),
            ("hidden", 0.0, min(r["arithmetic"], r["weights"])),
            ("cache" if r["fits"] else "cache over", r["weights"], r["caches"]),
        ]
        drawn.append((label, parts))
    table = [
        [
            str(r["batch"]),
            _ms(r["weights"], sig=3),
            # the arithmetic as its share of the weights' read, B / B_crit: the chapter's 0.34%
            # at batch 1 and 59% at 174 (a time of 4.47 ms beside 4.48 ms would be 4.5 ms)
            format_number(100 * r["arithmetic"] / r["weights"], 2) + "%",
            _ms(r["caches"]),
            _ms(r["pass"]),
            "yes" if r["fits"] else "no",
        ]
        for r in rows
    ]
    description = (
        f"{title}. "
        + "; ".join(
            f"batch {r[0]}: weights {r[1]}, arithmetic {r[2]} of them, caches {r[3]}, "
            f"pass {r[4]}{'' if r[5] == 'yes' else ', does not fit in memory'}"
            for r in table
        )
        + "."
    )
    caption = (
        f"The weights' read is the same at every batch, and the matmuls' arithmetic hides under "
        f"it up to the critical batch, {critical}; each conversation adds its cache's read, "
        f"batch 1 included. "
        f"Memory stops the batch at {largest}, where the caches already take most of the pass. "
        f"Roofline floors at the datasheet peaks."
    )
    return _render(
        "pass-batch",
        title,
        description,
        _bars(drawn, top),
        _ticks(top, step),
        [
            ("weights", "weights read"),
            ("hidden", "arithmetic, hidden"),
            ("cache", "KV caches read"),
            ("cache over", "past memory"),
        ],
        ["batch", "weights", "arithmetic, share of weights", "caches", "pass time", "fits"],
        table,
        caption,
    )


# ---- where one request's GPU time goes --------------------------------------------------


def request_time_rows() -> list[tuple[str, list[tuple[str, float, float]]]]:
    part = accelerator(ACCELERATOR)
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    pass_time = (
        decode_weight_bytes(MODEL, DTYPE) + kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch)
    ) / part.memory_bandwidth
    if batch * decode_flops_per_token(MODEL) / part.peak(DTYPE) > pass_time:
        raise ValueError("the full batch's pass is compute-bound: the bill's premise fails")
    decode = (ANSWER - 1) * pass_time / batch
    _, prompts = operating_point()
    # our service: the prompt rides in the decode passes and pays what it adds to them, the
    # answer a 1/batch share of the decode pass (the cost section's split; bk-c3, item 12)
    alone = decode_pass_time_by_kernel(MODEL, ACCELERATOR, DTYPE, batch, CONTEXT)
    loaded = decode_pass_time_by_kernel(MODEL, ACCELERATOR, DTYPE, batch, CONTEXT, prompts)
    added = PROMPT * (loaded - alone) / prompts
    # the cached-prompt arrangement is the reference table's (it left the picture with the move
    # into the main text, which must not grow)
    whole = prefill_time(MODEL, ACCELERATOR, DTYPE, PROMPT)
    return [
        ("our service: prompt in the passes", [("compute", 0.0, added), ("cache", added, decode)]),
        ("prompt on a GPU of its own", [("compute", 0.0, whole), ("cache", whole, decode)]),
    ]


def request_bill_html() -> SafeString:
    rows = request_time_rows()
    ends = [max(s + d for _, s, d in parts) for _, parts in rows]
    step = 40e-3
    top = step * (int(max(ends) / step) + 1)
    name = model(MODEL).name
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    title = f"GPU time of one {name} request: {PROMPT:,} tokens in, {ANSWER} out"

    def total(kind, parts):
        return sum(d for k, _, d in parts if k == kind)

    table = [
        [label, _ms(total("compute", p)), _ms(total("cache", p)), _ms(end)]
        for (label, p), end in zip(rows, ends, strict=True)
    ]
    description = (
        f"{title}. "
        + "; ".join(
            f"{r[0]}: input tokens {r[1]}, output tokens {r[2]}, total {r[3]}" for r in table
        )
        + "."
    )
    ours = rows[0][1]
    share = total("compute", ours) / (total("compute", ours) + total("cache", ours))
    caption = (
        f"A request's output tokens pay a 1/{batch} share of each of its {ANSWER - 1} decode "
        f"passes; its input tokens pay what the prompt adds to the passes it rides in, "
        f"{share:.0%} of the request, or a prefill on a GPU of its own. Roofline floors; "
        f"multiply by the GPU's price per second for dollars."
    )
    return _render(
        "request-bill",
        title,
        description,
        _bars(rows, top),
        _ticks(top, step),
        [("compute", "input tokens"), ("cache", "output tokens")],
        ["prompts run", "input tokens", "output tokens", "GPU time"],
        table,
        caption,
    )
