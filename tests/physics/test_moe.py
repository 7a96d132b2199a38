"""Serving mixture-of-experts models: experts a batch touches, bytes per step, the larger critical
batch, load imbalance, node-limited dispatch, and DeepSeek-V3's published deployment units."""

import random

import pytest

from content.physics import (
    accelerator,
    all_to_all_pass_time,
    critical_batch_size,
    decode_weight_bytes,
    deployment,
    deployments,
    embedding_params,
    expert_load_imbalance,
    expert_params,
    experts_touched,
    model,
    moe_critical_batch,
    moe_decode_step_time,
    moe_decode_weight_bytes,
    moe_shared_weight_bytes,
    node_limited_dispatch_bytes,
    routed_params,
    source,
    weights_bytes,
)


def test_one_token_touches_top_k_experts_and_a_large_batch_touches_all():
    assert experts_touched(1, 8, 2) == pytest.approx(2)
    assert experts_touched(0, 8, 2) == 0
    # Mixtral at batch 16: each expert is missed with probability 0.75^16, about 1%.
    assert experts_touched(16, 8, 2) == pytest.approx(8 * (1 - 0.75**16))
    assert experts_touched(1024, 256, 8) == pytest.approx(256, rel=1e-9)


def test_batch_one_reads_the_active_parameters_but_one_embedding_row():
    # The input embedding table is looked up, one row per token, as decode_weight_bytes counts
    # it (bank-recheck R-8: the whole table was 2.47% of DeepSeek-V3's bytes at batch 1).
    for name in ("mixtral-8x7b", "deepseek-v3"):
        mdl = model(name)
        assert moe_decode_weight_bytes(name, "bf16", 1) == pytest.approx(
            (mdl.active_params - embedding_params(mdl)) * 2
        )


def test_a_large_batch_reads_every_expert():
    mdl = model("mixtral-8x7b")
    assert moe_decode_weight_bytes(mdl, "bf16", 64) == pytest.approx(
        decode_weight_bytes(mdl, "bf16"), rel=1e-6
    )
    assert decode_weight_bytes(mdl, "bf16") < weights_bytes(mdl, "bf16")


def test_the_shared_bytes_are_the_decode_count_less_the_routed_experts():
    for name in ("mixtral-8x7b", "deepseek-v3"):
        for fmt, per_weight in (("bf16", 2), ("fp8", 1)):
            assert moe_shared_weight_bytes(name, fmt) == pytest.approx(
                decode_weight_bytes(name, fmt) - routed_params(name) * per_weight
            )
    # fp8: the shared weights but the two tables at 1 B, the output head at 2 B, and no input
    # table (one row per token)
    mdl = model("deepseek-v3")
    shared, table = mdl.params - routed_params(mdl), embedding_params(mdl)
    assert moe_shared_weight_bytes(mdl, "fp8") == pytest.approx((shared - 2 * table) + 2 * table)
    assert moe_shared_weight_bytes(mdl, "fp8") != pytest.approx(shared - table)


def test_routed_experts_are_most_of_deepseek_v3():
    mdl = model("deepseek-v3")
    assert expert_params(mdl) == 3 * 7168 * 2048
    assert routed_params(mdl) == 58 * 256 * expert_params(mdl)
    assert routed_params(mdl) / mdl.params > 0.95


def test_dense_models_have_no_experts():
    with pytest.raises(ValueError, match="dense"):
        expert_params("llama-3-70b")


def test_the_moe_critical_batch_is_the_dense_one_times_experts_over_k():
    dense = critical_batch_size("H100", "fp8")
    assert moe_critical_batch("mixtral-8x7b", "H100", "fp8") == pytest.approx(4 * dense)
    assert moe_critical_batch("deepseek-v3", "H100", "fp8") == pytest.approx(32 * dense)


def test_moe_steps_are_bandwidth_bound_by_the_experts_they_touch():
    mdl = model("mixtral-8x7b")
    t1 = moe_decode_step_time(mdl, "H100", "bf16")
    assert t1 == pytest.approx((mdl.active_params - embedding_params(mdl)) * 2 / 3.35e12)
    t64 = moe_decode_step_time(mdl, "H100", "bf16", 64)
    assert t64 == pytest.approx(decode_weight_bytes(mdl, "bf16") / 3.35e12, rel=1e-6)


def _simulated_imbalance(tokens, experts, top_k, trials, seed):
    rng = random.Random(seed)
    total = 0.0
    for _ in range(trials):
        load = [0] * experts
        for _ in range(tokens):
            for e in rng.sample(range(experts), top_k):
                load[e] += 1
        total += max(load) / (tokens * top_k / experts)
    return total / trials


@pytest.mark.parametrize("tokens,experts,top_k", [(64, 8, 2), (2048, 64, 8)])
def test_the_imbalance_formula_matches_a_simulation(tokens, experts, top_k):
    simulated = _simulated_imbalance(tokens, experts, top_k, trials=60, seed=7)
    assert expert_load_imbalance(tokens, experts, top_k) == pytest.approx(simulated, rel=0.06)


def test_imbalance_shrinks_as_each_expert_sees_more_tokens():
    small = expert_load_imbalance(256, 256, 8)
    large = expert_load_imbalance(256 * 256 // 8 * 8, 256, 8)
    assert small > 1.5 > 1.2 > large > 1


def test_node_limited_dispatch_sends_each_token_once_per_server():
    # 100 tokens of d = 7168 in fp8, at most 4 of 40 servers each: 100 x 4 x 7168 x 39/40.
    got = node_limited_dispatch_bytes(100, 7168, "fp8", 4, 40)
    assert got == pytest.approx(100 * 4 * 7168 * 39 / 40)
    assert node_limited_dispatch_bytes(100, 7168, "fp8", 4, 1) == 0


def test_all_to_all_pass_time_spans_bandwidth_to_latency_bound():
    # DeepEP: 561 µs per dispatch + combine at 128 tokens; 58 MoE layers, 88 tokens in 2 halves.
    bench = 192e-6 + 369e-6
    bandwidth = all_to_all_pass_time(88, 2, 58, 128, bench, 0)
    latency = all_to_all_pass_time(88, 2, 58, 128, bench, 1)
    assert bandwidth == pytest.approx(58 * bench * 88 / 128)  # the split costs nothing
    assert latency == pytest.approx(2 * 58 * bench)  # each half pays the full time
    assert bandwidth < all_to_all_pass_time(88, 2, 58, 128, bench, 0.5) < latency
    # one micro-batch at the benchmark's own shape is the benchmark, whatever the share
    assert all_to_all_pass_time(128, 1, 58, 128, bench, 0.3) == pytest.approx(58 * bench)


@pytest.mark.parametrize("unit", deployments(), ids=lambda d: d.key)
def test_deployment_units_are_consistent_and_sourced(unit):
    mdl = model(unit.model)
    assert unit.attention_tp * unit.attention_dp == unit.gpus
    hosted = unit.expert_parallel * unit.routed_experts_per_gpu
    redundant = unit.redundant_experts or 0
    assert hosted >= mdl.experts + redundant or unit.gpus > mdl.experts
    for field_name, key in unit.sources.items():
        assert source(key).key == key, field_name


def test_deepseek_v3_decode_spans_servers_over_infiniband():
    unit = deployment("deepseek-v3-decode-2024")
    assert (unit.nodes, unit.gpus, unit.expert_parallel) == (40, 320, 320)
    assert unit.gpus > 8  # far beyond one NVLink domain
    assert unit.scale_up_bandwidth / unit.scale_out_bandwidth == pytest.approx(3.2)
    newer = deployment("deepseek-v3-decode-2025")
    assert newer.expert_parallel * newer.routed_experts_per_gpu == 256 + newer.redundant_experts


@pytest.mark.parametrize(
    "call",
    [
        lambda: experts_touched(-1, 8, 2),
        lambda: experts_touched(4, 8, 9),
        lambda: moe_decode_weight_bytes("mixtral-8x7b", "bf16", 0),
        lambda: expert_load_imbalance(0, 8, 2),
        lambda: expert_load_imbalance(10, 8, 8),
        lambda: node_limited_dispatch_bytes(10, 7168, "fp8", 0, 4),
        lambda: all_to_all_pass_time(88, 0, 58, 128, 1e-3, 0),
        lambda: all_to_all_pass_time(88, 2, 58, 0, 1e-3, 0),
        lambda: all_to_all_pass_time(88, 2, 58, 128, 1e-3, 1.5),
        lambda: all_to_all_pass_time(-1, 2, 58, 128, 1e-3, 0),
    ],
)
def test_bad_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_the_h100_stand_in_is_the_papers_gpu_class():
    # The worked case runs DeepSeek's H800 numbers on the H100's figures (same Hopper SM count).
    assert accelerator("H100").sm_count == 132
