"""The argument limits of every physics function templates and chapters may call.

``content/subject.py`` hands the physics module's public names to the expression language;
this table, beside it, says what each function accepts (``content.expressions.limits``): a
catalog entry or its name, a quantity within a magnitude, a count, a loop length. The language
checks them before the function runs, so an author's expression cannot set a loop's length or
a set's size beyond what the book needs. A function added to ``content.physics.__all__``
without an entry here is refused when called, and ``tests/security/test_author_functions.py``
names it; so is a parameter without a limit.

Most functions are a few multiplications whatever their arguments: they declare plain
magnitudes. The ones whose work follows an argument declare that argument tightly (a warp of at
most 1,024 threads, the CUDA limit; a KV cache or batch counted in at most 10^12).
"""

from __future__ import annotations

import math

from content.expressions.limits import (
    MAX_MAGNITUDE,
    Entry,
    Flag,
    Limits,
    Number,
    Optional,
    Text,
    Unchecked,
    Values,
)

ENTRY = Entry()
MAYBE_ENTRY = Entry(optional=True)
QUANTITY = Number(-MAX_MAGNITUDE, MAX_MAGNITUDE)
# Devices, tokens, batches, layers: far beyond any real deployment, far below float trouble.
COUNT = Number(0, 1e12)
WHOLE_COUNT = Number(0, 1e12, integer=True)
FRACTION = Number(0, 1)
UNIT = Text(32)
SIG = Number(1, 15, integer=True)
# Formatting reads a number once, whatever its size (the language bounds integers to 256 bits).
ANY_NUMBER = Number(-1.8e308, 1.8e308)

# CUDA's largest block and a warp of at most that many threads (coalescing loops over them).
MAX_THREADS = 1024
# The sectors `coalescing_efficiency` may count: threads × sectors per element.
MAX_SECTORS = 2**17


def _coalescing_work(args) -> str | None:
    warp = args.get("warp_size", 32)
    element = args.get("element_bytes", 4)
    sector = args.get("sector_bytes", 32)
    sectors = warp * (element // sector + 2)
    if sectors > MAX_SECTORS:
        return (
            f"a warp of {warp:g} threads reading {element:g}-byte elements in {sector:g}-byte "
            f"sectors counts up to {sectors:,.0f} sectors; at most {MAX_SECTORS:,} are allowed"
        )
    return None


def _explained(args) -> str | None:
    """`explain` runs the function it names: that function's own limits apply to its
    arguments."""
    import inspect

    import content.physics as physics

    name = args.get("func_name")
    declared = LIMITS.get(name) if isinstance(name, str) else None
    if declared is None or name == "explain":
        return None  # `explain` itself says which names it can narrate
    try:
        bound = inspect.signature(getattr(physics, name)).bind(
            *args.get("args", ()), **args.get("kwargs", {})
        )
    except (TypeError, AttributeError) as exc:
        return f"{name}(): {exc}"
    for param, value in bound.arguments.items():
        problem = declared.params[param].problem(value)
        if problem:
            return f"{name}: {param} {problem}"
    return declared.check(bound.arguments) if declared.check is not None else None


def _prefill_chunks(args) -> str | None:
    """`chunked_prefill_ttft` sums one roofline per chunk: ⌈prompt ÷ chunk⌉ of them."""
    from content.physics.serving import MAX_PREFILL_CHUNKS

    prompt, chunk = args.get("prompt_tokens"), args.get("chunk")
    steps = math.ceil(prompt / chunk)
    if steps > MAX_PREFILL_CHUNKS:
        return (
            f"a prompt of {prompt:,.0f} tokens in chunks of {chunk:,.0f} takes {steps:,} steps; "
            f"at most {MAX_PREFILL_CHUNKS:,} are summed"
        )
    return None


_M_ACC_DT = {"m": ENTRY, "acc": ENTRY, "dt": ENTRY}
# A memory level's name ("driver", "framework", "serving"), a launch mode, a STREAM kernel.
NAME = Text(32)
# What share of a level a serving engine may fill (vLLM's gpu_memory_utilization).
_LEVEL = {"level": NAME, "utilization": FRACTION}
_DECODE = Limits(**_M_ACC_DT, batch=COUNT, context=COUNT)
# An all-reduce algorithm ("ring", "tree", "in-switch", "one-shot"); a start-up time per step.
ALGORITHM = Text(32)
SECONDS = Number(0, 3600)
# A batch in flight and the context each sequence holds: the serving functions' running batch.
_RUNNING = {"batch": COUNT, "context": COUNT}
# A static batch: the time is a few multiplications whatever the lengths.
_GENERATION = Limits(
    **_M_ACC_DT,
    batch=COUNT,
    prompt_tokens=COUNT,
    output_tokens=COUNT,
    kv_dt=MAYBE_ENTRY,
    rate_dt=MAYBE_ENTRY,
    overlap=Flag(),
    by_kernel=Flag(),
)

LIMITS: dict[str, Limits] = {
    # catalogs: a name to look up, or nothing
    "accelerator": Limits(name=ENTRY),
    "accelerators": Limits(),
    "dtype": Limits(name=ENTRY),
    "dtypes": Limits(),
    "link": Limits(name=ENTRY),
    "links": Limits(),
    "memory_hierarchy": Limits(acc=ENTRY),
    "model": Limits(name=ENTRY),
    "models": Limits(),
    "price": Limits(acc=ENTRY, market=Text(32)),
    "prices": Limits(),
    "source": Limits(key=ENTRY),
    "sources": Limits(),
    # roofline
    "arithmetic_intensity": Limits(flops=QUANTITY, bytes_moved=QUANTITY),
    "attainable_flops": Limits(acc=ENTRY, dt=ENTRY, intensity=QUANTITY),
    "is_memory_bound": Limits(acc=ENTRY, dt=ENTRY, intensity=QUANTITY),
    "kernel_time": Limits(flops=QUANTITY, bytes_moved=QUANTITY, acc=ENTRY, dt=ENTRY),
    "matmul_bytes": Limits(m=QUANTITY, n=QUANTITY, k=QUANTITY, dt=ENTRY),
    "matmul_flops": Limits(m=QUANTITY, n=QUANTITY, k=QUANTITY),
    "memory_bandwidth": Limits(acc=ENTRY),
    "peak_flops": Limits(acc=ENTRY, dt=ENTRY),
    "ridge_point": Limits(acc=ENTRY, dt=ENTRY),
    # inference
    "critical_batch_size": Limits(acc=ENTRY, dt=ENTRY, compute_dt=MAYBE_ENTRY),
    "decode_step_time": _DECODE,
    "decode_tokens_per_second": _DECODE,
    "energy_per_token": _DECODE,
    "gpus_needed": Limits(**_M_ACC_DT, context=COUNT, batch=COUNT, kv_dt=MAYBE_ENTRY, **_LEVEL),
    "kv_cache_bytes": Limits(m=ENTRY, tokens=COUNT, dt=ENTRY, batch=COUNT, window=Flag()),
    "kv_cache_bytes_per_token": Limits(m=ENTRY, dt=ENTRY),
    "kv_cache_tokens": Limits(m=ENTRY, context=COUNT),
    "layer_params": Limits(m=ENTRY, active=Flag()),
    "memory_fits": Limits(bytes_needed=QUANTITY, acc=ENTRY, devices=COUNT, **_LEVEL),
    "min_gpus": Limits(bytes_needed=QUANTITY, acc=ENTRY, **_LEVEL),
    "model_flops_per_token": Limits(m=ENTRY),
    "forward_flops_per_token": Limits(m=ENTRY),
    "pipeline_stages": Limits(m=ENTRY, dt=ENTRY, acc=ENTRY, headroom=FRACTION, level=NAME),
    # usable memory: what the driver reports, what a framework can allocate, what a server uses
    "fits": Limits(bytes_needed=QUANTITY, acc=ENTRY, gpus=COUNT, **_LEVEL),
    "runtime_reserve_bytes": Limits(acc=ENTRY),
    "serving_reserve_bytes": Limits(acc=ENTRY, gpus=COUNT),
    "runtime_total_bytes": Limits(acc=ENTRY),
    "spare_memory_bytes": Limits(bytes_needed=QUANTITY, acc=ENTRY, gpus=COUNT, **_LEVEL),
    "usable_memory_bytes": Limits(acc=ENTRY, gpus=COUNT, **_LEVEL),
    # attention and the KV cache
    "attention_flops": Limits(m=ENTRY, query_tokens=COUNT, context_tokens=COUNT, batch=COUNT),
    "causal_attention_flops": Limits(
        m=ENTRY, query_tokens=COUNT, context_tokens=COUNT, batch=COUNT
    ),
    "decode_attention_intensity": Limits(m=ENTRY, dt=ENTRY),
    "causal_flash_attention_hbm_bytes": Limits(
        seq_len=COUNT,
        head_dim=COUNT,
        dt=ENTRY,
        block_rows=Number(1, 2**20),
        heads=COUNT,
        batch=COUNT,
    ),
    "flash_attention_hbm_bytes": Limits(
        seq_len=COUNT,
        head_dim=COUNT,
        dt=ENTRY,
        block_rows=Number(1, 2**20),
        heads=COUNT,
        batch=COUNT,
    ),
    "kv_cache_bytes_per_token_mha": Limits(m=ENTRY, dt=ENTRY),
    "kv_cache_reduction": Limits(m=ENTRY, dt=ENTRY, baseline_dt=ENTRY),
    "standard_attention_hbm_bytes": Limits(
        seq_len=COUNT, head_dim=COUNT, dt=ENTRY, heads=COUNT, batch=COUNT
    ),
    # overhead: launch and dispatch costs added to the roofline
    "gpu_busy_time": Limits(gpu_seconds=QUANTITY, kernels=COUNT),
    "is_overhead_bound": Limits(gpu_seconds=QUANTITY, kernels=COUNT, mode=NAME),
    "kernel_time_with_overhead": Limits(
        flops=QUANTITY, bytes_moved=QUANTITY, acc=ENTRY, dt=ENTRY, kernels=COUNT, mode=NAME
    ),
    "launch_overhead": Limits(kernels=COUNT, mode=NAME),
    "time_with_overhead": Limits(gpu_seconds=QUANTITY, kernels=COUNT, mode=NAME),
    # forecasts: floors divided by the fractions of peak that were measured
    "achievable_bandwidth": Limits(acc=ENTRY, kernel=NAME),
    "achievable_flops": Limits(acc=ENTRY, dt=ENTRY),
    "bandwidth_efficiency": Limits(acc=ENTRY, kernel=NAME),
    "decode_forecast_time": Limits(**_M_ACC_DT, batch=COUNT, context=COUNT),
    "decode_kernels": Limits(m=ENTRY),
    "decode_recipe_error": Limits(),
    "decode_recipe_time": Limits(**_M_ACC_DT, batch=COUNT, context=COUNT, bandwidth=QUANTITY),
    "decode_forecast_range": Limits(**_M_ACC_DT, batch=COUNT, context=COUNT),
    "decode_batch_check": Limits(),
    "forecast_batch_generation_time": _GENERATION,
    "forecast_output_throughput": _GENERATION,
    "forecast_kernel_time": Limits(
        flops=QUANTITY, bytes_moved=QUANTITY, acc=ENTRY, dt=ENTRY, kernel=NAME
    ),
    "forecast_matmul_time": Limits(
        m=QUANTITY, n=QUANTITY, k=QUANTITY, acc=ENTRY, dt=ENTRY, tile_m=COUNT, tile_n=COUNT
    ),
    "forecast_time": Limits(floor_s=QUANTITY, fraction=FRACTION),
    "matmul_efficiency": Limits(acc=ENTRY, dt=ENTRY, m=QUANTITY, n=QUANTITY, k=QUANTITY),
    "measurement": Limits(key=ENTRY),
    "measurements": Limits(),
    "wave_efficiency": Limits(m=QUANTITY, n=QUANTITY, acc=ENTRY, tile_m=COUNT, tile_n=COUNT),
    "prefill_time": Limits(**_M_ACC_DT, prompt_tokens=COUNT, batch=COUNT),
    "quantization_speedup": Limits(m=ENTRY, acc=ENTRY, from_dt=ENTRY, to_dt=ENTRY),
    "quantized_weights_bytes": Limits(
        m=ENTRY, dt=ENTRY, group_size=Optional(COUNT), scale_bytes=QUANTITY
    ),
    "tensor_parallel_bytes_per_gpu": Limits(m=ENTRY, dt=ENTRY, n=COUNT),
    "time_per_token_floor": Limits(**_M_ACC_DT),
    "weights_bytes": Limits(params=Entry(or_number=QUANTITY), dt=ENTRY),
    # inside one GPU
    "bytes_in_flight": Limits(bandwidth=QUANTITY, latency_s=QUANTITY),
    "coalescing_efficiency": Limits(
        stride_elements=Number(1, 2**40, integer=True),
        element_bytes=Number(0, 1024),
        sector_bytes=Number(1, 4096, integer=True),
        warp_size=Number(1, MAX_THREADS, integer=True),
        check=_coalescing_work,
    ),
    "occupancy": Limits(
        acc=ENTRY,
        threads_per_block=Number(1, MAX_THREADS, integer=True),
        registers_per_thread=Number(0, 255, integer=True),
        shared_bytes_per_block=Number(0, 2**30),
    ),
    "peak_flops_from_clock": Limits(
        sm_count=QUANTITY, flops_per_clock_per_sm=QUANTITY, clock_hz=QUANTITY
    ),
    "tile_intensity": Limits(tile_m=QUANTITY, tile_n=QUANTITY, dt=ENTRY),
    # serving
    "max_batch_for_memory": Limits(
        **_M_ACC_DT, context=COUNT, devices=COUNT, kv_dt=MAYBE_ENTRY, **_LEVEL
    ),
    "max_batch_under_latency": Limits(
        **_M_ACC_DT, context=COUNT, target_step_s=QUANTITY, devices=COUNT, kv_dt=MAYBE_ENTRY
    ),
    "pipeline_bubble_fraction": Limits(stages=WHOLE_COUNT, microbatches=WHOLE_COUNT),
    "serving_batch_cap": Limits(acc=ENTRY),
    "speculative_expected_tokens": Limits(acceptance_rate=FRACTION, draft_tokens=WHOLE_COUNT),
    "speculative_speedup": Limits(
        acceptance_rate=FRACTION, draft_tokens=WHOLE_COUNT, draft_cost_ratio=QUANTITY
    ),
    # interconnect
    "alltoall_time": Limits(bytes_per_device=QUANTITY, devices=COUNT, ln=ENTRY),
    "moe_alltoall_bytes": Limits(tokens=COUNT, d_model=COUNT, top_k=COUNT, dt=ENTRY, devices=COUNT),
    "ring_allgather_time": Limits(bytes_moved=QUANTITY, n=COUNT, ln=ENTRY),
    "ring_allreduce_time": Limits(bytes_moved=QUANTITY, n=COUNT, ln=ENTRY),
    "tensor_parallel_allreduce_time": Limits(
        m=ENTRY, dt=ENTRY, n=COUNT, ln=ENTRY, tokens=COUNT, batch=COUNT
    ),
    "transfer_time": Limits(bytes_moved=QUANTITY, ln=ENTRY),
    "achieved_link_fraction": Limits(measurement=ENTRY),
    "allreduce_crossover_bytes": Limits(
        n=COUNT, ln=ENTRY, first=ALGORITHM, second=ALGORITHM, step_latency=SECONDS
    ),
    "allreduce_link_bytes": Limits(bytes_moved=QUANTITY, n=COUNT, algorithm=ALGORITHM),
    "allreduce_steps": Limits(n=COUNT, algorithm=ALGORITHM),
    "allreduce_time": Limits(
        bytes_moved=QUANTITY, n=COUNT, ln=ENTRY, algorithm=ALGORITHM, step_latency=SECONDS
    ),
    "collective_measurement": Limits(name=ENTRY),
    "collective_measurements": Limits(),
    "latency_bound_below": Limits(n=COUNT, ln=ENTRY, algorithm=ALGORITHM, step_latency=SECONDS),
    "multinode_allreduce_time": Limits(
        bytes_moved=QUANTITY,
        nodes=COUNT,
        gpus_per_node=COUNT,
        scale_up=ENTRY,
        scale_out=ENTRY,
        nics_per_node=Optional(COUNT),
        pipelined=Flag(),
    ),
    "step_latency": Limits(measurement=ENTRY),
    "tensor_parallel_decode_time": Limits(
        **_M_ACC_DT, n=COUNT, ln=ENTRY, **_RUNNING, algorithm=ALGORITHM, step_latency=SECONDS
    ),
    # the serving system around the model
    "chunked_prefill_ttft": Limits(
        **_M_ACC_DT,
        prompt_tokens=COUNT,
        chunk=Number(1, 1e12),
        **_RUNNING,
        by_kernel=Flag(),
        check=_prefill_chunks,
    ),
    "free_prefill_chunk": Limits(**_M_ACC_DT, **_RUNNING, by_kernel=Flag()),
    "decode_pass_time_by_kernel": Limits(**_M_ACC_DT, **_RUNNING, extra_tokens=COUNT),
    "paged_kv_waste_fraction": Limits(tokens=COUNT, block_tokens=COUNT),
    "prefill_to_decode_gpu_ratio": Limits(
        **_M_ACC_DT, prompt_tokens=COUNT, output_tokens=COUNT, **_RUNNING
    ),
    "prefix_cache_prefill_time": Limits(**_M_ACC_DT, prompt_tokens=COUNT, cached_tokens=COUNT),
    "request_latency": Limits(**_M_ACC_DT, prompt_tokens=COUNT, output_tokens=COUNT, **_RUNNING),
    "reserved_kv_waste_fraction": Limits(tokens=COUNT, reserved_tokens=COUNT),
    "speculative_speedup_at_batch": Limits(
        **_M_ACC_DT,
        acceptance_rate=FRACTION,
        draft_tokens=WHOLE_COUNT,
        draft_cost_ratio=QUANTITY,
        **_RUNNING,
        draft_cache_ratio=FRACTION,
        by_kernel=Flag(),
    ),
    # mixture of experts
    "all_to_all_pass_time": Limits(
        tokens_per_gpu=COUNT,
        micro_batches=WHOLE_COUNT,
        moe_layers=WHOLE_COUNT,
        bench_tokens=COUNT,
        bench_seconds=COUNT,
        latency_share=FRACTION,
    ),
    "expert_load_imbalance": Limits(tokens=COUNT, experts=COUNT, top_k=COUNT),
    "expert_params": Limits(m=ENTRY),
    "experts_touched": Limits(tokens=COUNT, experts=COUNT, top_k=COUNT),
    "moe_critical_batch": Limits(acc=ENTRY, dt=ENTRY, m=ENTRY, compute_dt=MAYBE_ENTRY),
    "moe_decode_step_time": Limits(**_M_ACC_DT, **_RUNNING),
    "moe_decode_weight_bytes": Limits(m=ENTRY, dt=ENTRY, batch=COUNT),
    "moe_shared_weight_bytes": Limits(m=ENTRY, fmt=ENTRY),
    "node_limited_dispatch_bytes": Limits(
        tokens=COUNT, d_model=COUNT, dt=ENTRY, nodes_per_token=COUNT, nodes=COUNT
    ),
    "routed_params": Limits(m=ENTRY),
    # precision as deployed: weight formats with their scales, and what they buy
    "checkpoint_bytes": Limits(m=ENTRY, fmt=ENTRY),
    "decode_floor": Limits(m=ENTRY, acc=ENTRY, fmt=ENTRY),
    "decode_flops_per_token": Limits(m=ENTRY),
    "decode_weight_bytes": Limits(m=ENTRY, fmt=ENTRY),
    "dynamic_range_binades": Limits(dt=ENTRY, subnormals=Flag()),
    "embedding_params": Limits(m=ENTRY),
    "format_bits_per_weight": Limits(fmt=ENTRY),
    "quantization_gain": Limits(m=ENTRY, acc=ENTRY, from_fmt=ENTRY, to_fmt=ENTRY),
    "quantized_decode_step_time": Limits(
        m=ENTRY,
        acc=ENTRY,
        fmt=ENTRY,
        **_RUNNING,
        kv_dt=ENTRY,
        compute_dt=MAYBE_ENTRY,
        devices=COUNT,
        by_kernel=Flag(),
        bandwidth_fraction=FRACTION,
    ),
    "quantized_max_batch": Limits(
        m=ENTRY, acc=ENTRY, fmt=ENTRY, context=COUNT, kv_dt=ENTRY, devices=COUNT, level=NAME
    ),
    "smoothquant_factor": Limits(activation_max=QUANTITY, weight_max=QUANTITY, alpha=FRACTION),
    "weight_format": Limits(name=ENTRY),
    "weight_formats": Limits(),
    # cost
    "api_price": Limits(name=ENTRY),
    "api_prices": Limits(),
    "api_request_cost": Limits(
        price=ENTRY, input_tokens=COUNT, output_tokens=COUNT, cached_input_tokens=COUNT
    ),
    "cost_per_million_input_tokens": Limits(
        price_per_hour=QUANTITY, **_M_ACC_DT, prompt_tokens=COUNT
    ),
    "cost_per_million_output_tokens": Limits(price_per_hour=QUANTITY, **_M_ACC_DT, **_RUNNING),
    "cost_per_million_tokens": Limits(price_per_hour=QUANTITY, tokens_per_second=QUANTITY),
    "dollars_per_hour_for": Limits(acc=ENTRY, n=COUNT, market=Text(32)),
    "request_cost": Limits(
        price_per_hour=QUANTITY,
        **_M_ACC_DT,
        prompt_tokens=COUNT,
        output_tokens=COUNT,
        **_RUNNING,
        cached_tokens=COUNT,
    ),
    # sourced figures quoted in the prose, and deployments
    "deployment": Limits(name=ENTRY),
    "deployments": Limits(),
    "published": Limits(name=ENTRY),
    "published_figures": Limits(),
    # worked solutions and presentation
    "explain": Limits(
        func_name=Text(64),
        args=Values(Unchecked("checked against the named function's own limits"), 16),
        kwargs=Values(Unchecked("checked against the named function's own limits"), 16),
        check=_explained,
    ),
    "explainable": Limits(),
    "format_number": Limits(x=ANY_NUMBER, sig=SIG, group=Flag(), approx=Flag()),
    "format_quantity": Limits(
        value=ANY_NUMBER,
        unit=UNIT,
        sig=SIG,
        approx=Flag(),
        fixed=Flag(),
        group=Flag(),
        round_whole=Flag(),
    ),
    "to_unit": Limits(value=ANY_NUMBER, unit=UNIT),
    "unit_label": Limits(unit=UNIT),
    # methods of catalog entries ("Class.method"; `self` is the entry itself)
    "Accelerator.citations": Limits(),
    "ApiPrice.citations": Limits(),
    "CollectiveMeasurement.citations": Limits(),
    "Deployment.citations": Limits(),
    "Accelerator.noun": Limits(count=COUNT),
    "Accelerator.peak": Limits(dt=ENTRY),
    "Accelerator.source_key": Limits(field_name=Text(64)),
    "DType.citations": Limits(),
    "Link.citations": Limits(),
    "MeasuredLevel.citations": Limits(),
    "MemoryLevel.citations": Limits(),
    "Measurement.citations": Limits(),
    "Model.citations": Limits(),
    "PriceSnapshot.citations": Limits(),
    "PublishedFigure.citations": Limits(),
    "PublishedFigure.shown": Limits(),
    "WeightFormat.citations": Limits(),
}
