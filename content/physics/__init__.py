"""The hardware-physics module: catalogs of real parts and the formulas of Part 1.

Every quantity is in SI base units (bytes, seconds, FLOP, FLOP/s, bytes/s, US dollars, watts,
joules); formatting into "TB/s" or "ms" is ``formatting``'s job.  Functions are pure and take
catalog entries or their names; a hypothetical part is ``dataclasses.replace(accelerator("H100"),
memory_bandwidth=4e12)``.  Nothing here imports Django: the apps depend on this package, never the
reverse, and templates and chapters see exactly ``__all__``.
"""

from content.physics.catalog import (
    Accelerator,
    DType,
    Link,
    MemoryLevel,
    Model,
    PriceSnapshot,
    Source,
    accelerator,
    accelerators,
    dtype,
    dtypes,
    link,
    links,
    memory_hierarchy,
    model,
    models,
    price,
    prices,
    source,
    sources,
)
from content.physics.cost import cost_per_million_tokens, dollars_per_hour_for
from content.physics.explain import Explanation, Step, explain, explainable
from content.physics.formatting import format_number, format_quantity, to_unit, unit_label
from content.physics.inference import (
    critical_batch_size,
    decode_step_time,
    decode_tokens_per_second,
    energy_per_token,
    gpus_needed,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    min_gpus,
    model_flops_per_token,
    pipeline_stages,
    prefill_time,
    quantization_speedup,
    quantized_weights_bytes,
    tensor_parallel_bytes_per_gpu,
    time_per_token_floor,
    weights_bytes,
)
from content.physics.interconnect import (
    ring_allgather_time,
    ring_allreduce_time,
    tensor_parallel_allreduce_time,
    transfer_time,
)
from content.physics.roofline import (
    arithmetic_intensity,
    attainable_flops,
    is_memory_bound,
    kernel_time,
    matmul_bytes,
    matmul_flops,
    memory_bandwidth,
    peak_flops,
    ridge_point,
)

__all__ = [
    # catalogs
    "Accelerator",
    "DType",
    "Link",
    "MemoryLevel",
    "Model",
    "PriceSnapshot",
    "Source",
    "accelerator",
    "accelerators",
    "dtype",
    "dtypes",
    "link",
    "links",
    "memory_hierarchy",
    "model",
    "models",
    "price",
    "prices",
    "source",
    "sources",
    # roofline
    "arithmetic_intensity",
    "attainable_flops",
    "is_memory_bound",
    "kernel_time",
    "matmul_bytes",
    "matmul_flops",
    "memory_bandwidth",
    "peak_flops",
    "ridge_point",
    # inference
    "critical_batch_size",
    "decode_step_time",
    "decode_tokens_per_second",
    "energy_per_token",
    "gpus_needed",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "min_gpus",
    "model_flops_per_token",
    "pipeline_stages",
    "prefill_time",
    "quantization_speedup",
    "quantized_weights_bytes",
    "tensor_parallel_bytes_per_gpu",
    "time_per_token_floor",
    "weights_bytes",
    # interconnect
    "ring_allgather_time",
    "ring_allreduce_time",
    "tensor_parallel_allreduce_time",
    "transfer_time",
    # cost
    "cost_per_million_tokens",
    "dollars_per_hour_for",
    # worked solutions and presentation
    "Explanation",
    "Step",
    "explain",
    "explainable",
    "format_number",
    "format_quantity",
    "to_unit",
    "unit_label",
]
