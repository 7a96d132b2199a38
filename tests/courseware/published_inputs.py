"""The published inputs the chapters 00-02 review tests recompute the running token from
(Llama-2-7B in 16 bits; Azure's STREAM and FlashAttention-2 runs, gpt-fast's README, TensorRT-LLM's
perf table, ocannl#488's launch costs), and the recipe built from them in the tests' own code,
not by the physics functions the chapters call."""

from __future__ import annotations

import content.physics as physics
from content.physics import format_number

PARAMS = physics.model("llama-2-7b").params
WEIGHTS = 2 * PARAMS  # 16-bit
KV_PER_TOKEN = 2 * 32 * 32 * 128 * 2  # K and V, 32 layers, 32 heads of 128, 16-bit
KERNELS, NODE, GRAPH = 32 * 12 + 4, 0.58e-6, 15e-6
STREAM_A100, STREAM_H100, CAPPED_A100 = 1.75e12, 3.18e12, 1.70e12  # Azure dot; gpt-fast README
MAMF_A100 = physics.achievable_flops("A100", "bf16")
GPT_FAST, TRTLLM_60 = 104.9, 1928  # tokens/s
FA2_H100 = 327.9e12  # Azure, FlashAttention-2, head dim 128


def recipe(batch: int, context: float, bandwidth: float, mamf: float) -> float:
    """Chapter 01's recipe for a decode step: the larger of arithmetic at the achieved matmul rate
    and bytes at the STREAM rate, plus a graph node per kernel and one graph launch."""
    flops = 2 * PARAMS * batch + 4 * 32 * 32 * 128 * context * batch
    nbytes = WEIGHTS + KV_PER_TOKEN * context * batch
    return max(flops / mamf, nbytes / bandwidth) + KERNELS * NODE + GRAPH


# The recipe's error on gpt-fast's measured A100 token: the forecast's correction.
ERROR = 1 / recipe(1, 0, STREAM_A100, MAMF_A100) / GPT_FAST - 1


def pct(x: float) -> str:
    return f"{format_number(100 * x, 2)}%"
