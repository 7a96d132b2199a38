"""Precision as deployed: what a format really costs in bits per weight once its scales and zero
points are counted, what a checkpoint that keeps its embeddings in 16 bits weighs and reads per
decode step, the range and resolution of the float formats, and SmoothQuant's smoothing factor.

A format is a ``weight_format`` entry (a group or block format such as GPTQ int4 or NVFP4) or a
plain dtype (bf16, fp8: no scales).  A checkpoint in a format narrower than 16 bits keeps its
input embedding and output head in 16 bits, as deployed quantized checkpoints do (the sources
are on each ``weight_format`` entry's ``keeps_16bit_embeddings``; a plain fp8 or int8 checkpoint
follows llm-compressor's and vLLM's fp8 configurations, which quantize linear layers and ignore
``lm_head``).  ``inference.weights_bytes`` is the plainer count, every parameter in one dtype.
Models' embeddings are untied (input table and output head are separate V × d matrices), as in
every model of the catalog.
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import DType, dtype
from content.physics.catalog.models import model
from content.physics.catalog.weight_formats import WeightFormat, weight_format
from content.physics.inference import (
    ModelLike,
    _compute_peak,
    forward_flops_per_token,
    kv_cache_bytes,
)
from content.physics.memory import FIT_TOLERANCE, usable_memory_bytes
from content.physics.roofline import AcceleratorLike

FormatLike = str | WeightFormat | DType
_SIXTEEN_BITS = 2  # bytes of a 16-bit embedding or output head


def _resolve(fmt: FormatLike) -> WeightFormat | DType:
    if isinstance(fmt, (WeightFormat, DType)):
        return fmt
    try:
        return weight_format(fmt)
    except KeyError:
        try:
            return dtype(fmt)
        except KeyError:
            raise KeyError(f"unknown format {fmt!r}: neither a weight format nor a dtype") from None


def format_bits_per_weight(fmt: FormatLike) -> float:
    """Bits stored per weight: element bits + (scale bits + zero-point bits) ÷ group size +
    second-level bits.  GPTQ int4 g128: 4 + 20/128 = 4.156; MXFP4: 4 + 8/32 = 4.25; NVFP4:
    4 + 8/16 = 4.5.  A plain dtype is its own bits."""
    found = _resolve(fmt)
    if isinstance(found, DType):
        return float(found.bits)
    element = dtype(found.element).bits
    per_group = (found.scale_bits + found.zero_point_bits) / found.group_size
    return element + per_group + found.second_level_bits


def embedding_params(m: ModelLike) -> int:
    """Parameters of one embedding table, V × d (the input table; the output head is another)."""
    mdl = model(m)
    return mdl.vocab_size * mdl.d_model


def _keeps_16bit(found: WeightFormat | DType) -> bool:
    """Whether a checkpoint in ``found`` keeps both V × d tables in 16 bits: a weight format as
    its entry says (every catalogued one does), a plain dtype when it is narrower than 16 bits
    (a wider one stores the tables in its own width, like every other weight)."""
    if isinstance(found, WeightFormat):
        return found.keeps_16bit_embeddings
    return found.bits < 16


def checkpoint_bytes(m: ModelLike, fmt: FormatLike) -> float:
    """Bytes of a model stored in ``fmt``: every weight at ``format_bits_per_weight``, except
    that a format which keeps its embeddings in 16 bits stores both V × d tables (input and
    output head) at 2 bytes each."""
    mdl, found = model(m), _resolve(fmt)
    bits = format_bits_per_weight(found)
    if not _keeps_16bit(found):
        return mdl.params * bits / 8
    tables = 2 * embedding_params(mdl)
    return (mdl.params - tables) * bits / 8 + tables * _SIXTEEN_BITS


def decode_weight_bytes(m: ModelLike, fmt: FormatLike) -> float:
    """Weight bytes one decode pass reads in ``fmt``: the checkpoint minus the input embedding
    table, of which a step reads one row per token (the output head is a real matmul and is
    read in full).  The one count of "bytes a decode pass reads" for every decode floor that
    charges a checkpoint: chapter 04's formats and the tensor-parallel floors of
    ``collectives.tensor_parallel_decode_time``."""
    mdl, found = model(m), _resolve(fmt)
    table_bytes = embedding_params(mdl) * (
        _SIXTEEN_BITS if _keeps_16bit(found) else format_bits_per_weight(found) / 8
    )
    return checkpoint_bytes(mdl, found) - table_bytes


def decode_flops_per_token(m: ModelLike) -> float:
    """FLOPs one token costs in a decode pass: 2 × the active parameters it multiplies, which
    leaves out the input embedding table (a lookup reads one row and multiplies nothing).  The
    FLOP count that goes with ``decode_weight_bytes``, so a pass's intensity at batch 1 is 2/b
    (Kaplan et al.'s C ≈ 2N also leaves the embeddings out): ``inference.forward_flops_per_token``,
    the count prefill charges too, under the name chapter 03-05 and the bank call it by;
    ``model_flops_per_token`` is the plainer 2 × active parameters."""
    return forward_flops_per_token(m)


def decode_floor(m: ModelLike, acc: AcceleratorLike, fmt: FormatLike) -> float:
    """Batch-1 decode floor in ``fmt``: ``decode_weight_bytes`` ÷ memory bandwidth (KV cache
    and dequantization left out)."""
    return decode_weight_bytes(m, fmt) / accelerator(acc).memory_bandwidth


def quantization_gain(m: ModelLike, acc: AcceleratorLike, from_fmt: FormatLike, to_fmt: FormatLike):
    """How much faster the batch-1 decode floor is in ``to_fmt`` than in ``from_fmt``, scales,
    zero points and 16-bit embeddings counted: decode_floor(from) ÷ decode_floor(to)."""
    return decode_floor(m, acc, from_fmt) / decode_floor(m, acc, to_fmt)


def dynamic_range_binades(dt: str | DType, *, subnormals: bool = False) -> float:
    """Powers of two a float format spans: log₂(largest finite ÷ smallest normal), or ÷ the
    smallest subnormal with ``subnormals``.  E4M3 about 15 binades, E5M2 about 30."""
    fmt = dtype(dt)
    if fmt.min_normal is None:
        raise ValueError(f"{fmt.name} is not a float format: its range is set by its scale")
    smallest = fmt.min_subnormal if subnormals else fmt.min_normal
    return math.log2(fmt.max_finite / smallest)


def smoothquant_factor(activation_max: float, weight_max: float, alpha: float = 0.5) -> float:
    """SmoothQuant's per-channel factor s = max|X|^α ÷ max|W|^(1 − α): dividing the activation
    channel by s and multiplying the weight row by s leaves X · W unchanged while moving part of
    the outlier's range into the weights."""
    if activation_max <= 0 or weight_max <= 0:
        raise ValueError("activation_max and weight_max must be positive")
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must be between 0 and 1")
    return activation_max**alpha / weight_max ** (1 - alpha)


def _compute_format(found: WeightFormat | DType, compute_dt: str | DType | None) -> DType:
    """The format the tensor cores multiply in: ``compute_dt`` if given; otherwise a float
    element's own format (fp8, fp4: weights and activations both quantized), or bf16 for
    integer and codebook elements (weight-only formats unpack to 16 bits)."""
    if compute_dt is not None:
        return dtype(compute_dt)
    element = dtype(found.element) if isinstance(found, WeightFormat) else found
    return element if element.kind == "float" else dtype("bf16")


def quantized_decode_step_time(
    m: ModelLike,
    acc: AcceleratorLike,
    fmt: FormatLike,
    batch: int = 1,
    context: float = 0,
    kv_dt: str | DType = "bf16",
    compute_dt: str | DType | None = None,
    devices: int = 1,
    *,
    by_kernel: bool = False,
    bandwidth_fraction: float = 1,
) -> float:
    """One decode step of ``batch`` sequences with weights stored in ``fmt`` and the cache in
    ``kv_dt``, split evenly over ``devices`` (communication left out: see ``collectives``):
    max((decode_weight_bytes + KV) ÷ devices ÷ bandwidth, decode_flops_per_token · batch ÷
    devices ÷ peak), the peak of the compute format (``_compute_format``): bytes and FLOPs both
    leave out the input embedding table, which a pass only looks up.  A format the part has no
    rate for (fp4 before Blackwell) falls back to its 16-bit rate, as weights are dequantized.

    ``by_kernel=True`` prices the pass kernel by kernel, as ``decode_pass_time_by_kernel`` does:
    the matmuls take max(weights ÷ bandwidth, FLOPs ÷ peak), the attention kernels the cache's
    read, and the two add, since cache reads never run beside matmul arithmetic (eighth review
    of 03-05, H-10).  ``bandwidth_fraction`` (default 1, the floor) scales the bandwidth alone,
    so a forecast divides the memory times by the achieved fraction and leaves the arithmetic
    at the peak."""
    if isinstance(batch, bool) or batch < 1 or isinstance(devices, bool) or devices < 1:
        raise ValueError("batch and devices must be at least 1")
    if not 0 < bandwidth_fraction <= 1:
        raise ValueError("bandwidth_fraction must be more than 0 and at most 1")
    mdl, part, found = model(m), accelerator(acc), _resolve(fmt)
    bandwidth = part.memory_bandwidth * bandwidth_fraction
    weights = decode_weight_bytes(mdl, found) / devices / bandwidth
    cache = kv_cache_bytes(mdl, context, kv_dt, batch) / devices / bandwidth
    compute = _compute_format(found, compute_dt)
    arithmetic = decode_flops_per_token(mdl) * batch / devices / _compute_peak(part, compute)
    if by_kernel:
        return max(weights, arithmetic) + cache
    read = decode_weight_bytes(mdl, found) + kv_cache_bytes(mdl, context, kv_dt, batch)
    return max(read / devices / bandwidth, arithmetic)


def quantized_max_batch(
    m: ModelLike,
    acc: AcceleratorLike,
    fmt: FormatLike,
    context: float,
    kv_dt: str | DType = "bf16",
    devices: int = 1,
    *,
    level: str = "serving",
) -> int:
    """The largest batch of ``context``-token sequences whose cache (in ``kv_dt``) fits beside a
    checkpoint in ``fmt`` on ``devices`` devices at memory ``level``:
    ⌊(devices × usable_memory_bytes(acc, level, gpus=devices) − checkpoint_bytes) ÷ KV bytes
    per sequence⌋, 0 when the
    checkpoint alone does not fit."""
    if isinstance(devices, bool) or devices < 1 or context <= 0:
        raise ValueError("devices must be at least 1 and context positive")
    spare = devices * usable_memory_bytes(acc, level, gpus=devices) - checkpoint_bytes(m, fmt)
    per_sequence = kv_cache_bytes(m, context, kv_dt)
    return max(0, math.floor(spare / per_sequence + FIT_TOLERANCE))
