"""The diagnosis codes a template may name: the usual slips of Part 1, one short code each.

The question-format document lists the same codes with their meaning; add a code in both places.
"""

from __future__ import annotations

DIAGNOSIS_CODES: dict[str, str] = {
    "bits-for-bytes": "confused bits and bytes (a factor of 8)",
    "macs-for-flops": "counted multiply-accumulates as FLOPs, or forgot the 2 in 2mnk",
    "wrong-dtype-bytes": "used the bytes per number of another data type",
    "sparse-peak": "used the 2:4-sparse peak instead of the dense rate",
    "kv-no-layers": "KV cache for one layer instead of all of them",
    "kv-no-two": "KV cache with keys only: forgot the factor 2",
    "kv-cache-forgotten": "left the KV cache out of the total",
    "batch-ignored": "forgot to multiply or divide by the batch size",
    "bidirectional-bandwidth": "used the bidirectional link figure",
    "binary-vs-decimal": "mixed binary and decimal prefixes (GiB and GB)",
    "prefix-slip": "off by a power of 1000",
    "reciprocal": "inverted the ratio",
    "active-vs-total-params": "mixed the active and total parameters of a mixture of experts",
    "memory-vs-compute-bound": "used the wrong leg of the roofline",
    "weights-only": "counted only the weights",
    "per-gpu-vs-total": "mixed a per-GPU figure and the system total",
    "ring-factor": "left out the 2(n-1)/n of a ring all-reduce",
    "latency-ignored": "left out a fixed latency",
    "params-as-bytes": "used the parameter count as a byte count",
    "peak-for-attainable": "used the peak rate where the attainable rate was needed",
    "tokens-for-steps": "confused tokens per second with decode steps per second",
    "swapped-quantities": "answered with the other quantity of the pair (compute for bandwidth)",
    "percent-as-fraction": "wrote a percentage as a plain number (7.8 for 7.8%) or the reverse",
    "rounded-down": "rounded a whole count down where it must cover the total",
    "hours-for-seconds": "left out a conversion between hours, minutes and seconds",
    "tensor-for-vector-peak": "used the tensor-core peak for work only the vector lanes can do",
    "writes-forgotten": "counted the bytes read but not the bytes written",
    "divergence-ignored": "treated a divergent warp as if each thread ran only its own path",
    "occupancy-limiter": "took one resource's block limit where another runs out first",
    "sector-granularity": "forgot that memory moves whole 32-byte sectors, not single elements",
    "assumed-doubling": "assumed halving the precision doubles the peak, against the datasheet",
    "gqa-heads": "used the query heads where the key-value heads set the KV cache",
    "weights-not-subtracted": "divided the whole memory among KV caches, forgetting the weights",
    "comm-vs-compute": "took communication for the limit when compute is, or the reverse",
    "aggregate-for-point-to-point": "used a GPU's total link bandwidth for a copy to one peer",
    "scales-forgotten": "left out the bits of the quantization scales",
    "wrong-format-range": "used the largest value (or range) of another number format",
}
