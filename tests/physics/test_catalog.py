"""Catalog integrity: sources exist, dense never exceeds sparse, look-ups forgive case and typos."""

import dataclasses
import math
import pickle
import re

import pytest

from content.physics import (
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
from content.physics.catalog.models import count_params

NUMERIC_SCALARS = {
    "accelerator": (
        "memory_bytes",
        "memory_bandwidth",
        "year",
        "sm_count",
        "l2_bytes",
        "sram_per_sm_bytes",
        "power_watts",
        "links_per_gpu",
    ),
    "link": ("bandwidth", "bidirectional_bandwidth", "latency"),
    "model": (
        "params",
        "active_params",
        "layers",
        "d_model",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "ffn_dim",
        "vocab_size",
        "context_length",
    ),
    "dtype": ("bits", "bytes", "exponent_bits", "mantissa_bits", "max_finite", "step_near_one"),
}


def _assert_cited(entry, field_name, key):
    assert key is not None, f"{entry} field {field_name} has no source"
    assert source(key).key == key


@pytest.mark.parametrize("acc", accelerators(), ids=lambda a: a.key)
def test_every_accelerator_figure_cites_a_known_source(acc):
    for field_name in NUMERIC_SCALARS["accelerator"]:
        if getattr(acc, field_name) is not None:
            _assert_cited(acc.key, field_name, acc.source_key(field_name))
    for dt in acc.peak_flops:
        _assert_cited(acc.key, f"peak_flops.{dt}", acc.source_key(f"peak_flops.{dt}"))
    if acc.sparse_peak_flops:
        _assert_cited(acc.key, "sparse_peak_flops", acc.source_key("sparse_peak_flops"))
    assert acc.citations()


@pytest.mark.parametrize(
    ("kind", "entries"),
    [("link", links()), ("model", models()), ("dtype", dtypes())],
)
def test_every_other_catalog_figure_cites_a_known_source(kind, entries):
    for entry in entries:
        for field_name in NUMERIC_SCALARS[kind]:
            if getattr(entry, field_name) is not None:
                _assert_cited(entry.name, field_name, entry.sources.get(field_name))


def test_hierarchy_and_prices_cite_known_sources():
    for acc in ("H100", "A100", "MI300X", "TPU v5e"):
        for level in memory_hierarchy(acc):
            for field_name in ("size_bytes", "bandwidth", "latency"):
                if getattr(level, field_name) is not None:
                    _assert_cited(level.name, field_name, level.sources.get(field_name))
    for snapshot in prices():
        assert source(snapshot.source)
        assert accelerator(snapshot.accelerator).key == snapshot.accelerator


def test_source_keys_are_unique_and_have_titles():
    keys = [s.key for s in sources()]
    assert len(keys) == len(set(keys))
    assert all(s.title for s in sources())
    assert all(s.url.startswith("https://") for s in sources())


@pytest.mark.parametrize("acc", accelerators(), ids=lambda a: a.key)
def test_dense_rate_never_exceeds_the_sparse_headline(acc):
    assert set(acc.sparse_peak_flops) <= set(acc.peak_flops)
    for dt, sparse in acc.sparse_peak_flops.items():
        assert acc.peak_flops[dt] <= sparse


@pytest.mark.parametrize("acc", accelerators(), ids=lambda a: a.key)
def test_bf16_and_fp16_tensor_rates_match_where_both_exist(acc):
    if "bf16" in acc.peak_flops and "fp16" in acc.peak_flops:
        assert acc.peak_flops["bf16"] == acc.peak_flops["fp16"]


def test_per_direction_bandwidth_is_at_most_bidirectional():
    for ln in links():
        assert 0 < ln.bandwidth <= ln.bidirectional_bandwidth


@pytest.mark.parametrize(
    ("alias", "key"),
    [
        ("V100", "v100-sxm2"),
        ("A100", "a100-sxm-80gb"),
        ("H100", "h100-sxm"),
        ("h100", "h100-sxm"),
        ("H200", "h200"),
        ("B200", "b200"),
        ("MI300X", "mi300x"),
        ("mi325x", "mi325x"),
        ("L4", "l4"),
        ("T4", "t4"),
        ("A10", "a10"),
        ("RTX 4090", "rtx-4090"),
        ("4090", "rtx-4090"),
        ("TPU v4", "tpu-v4"),
        ("v4", "tpu-v4"),
        ("TPU v5e", "tpu-v5e"),
        ("tpu V5P", "tpu-v5p"),
        ("EPYC 9654", "epyc-9654"),
        ("A100 40GB", "a100-sxm-40gb"),
    ],
)
def test_accelerator_aliases_resolve_case_insensitively(alias, key):
    assert accelerator(alias).key == key


def test_every_required_accelerator_key_exists():
    required = (
        "v100-sxm2 a100-sxm-40gb a100-sxm-80gb h100-sxm h100-pcie h200 b200 mi300x "
        "mi325x l4 t4 a10 rtx-4090 tpu-v4 tpu-v5e tpu-v5p epyc-9654"
    ).split()
    assert set(required) <= {a.key for a in accelerators()}


def test_a_typo_names_the_close_match():
    with pytest.raises(KeyError, match="H100"):
        accelerator("H10O")
    with pytest.raises(KeyError, match="llama-2-70b|Llama-2-70B"):
        model("lama-2-70b")
    with pytest.raises(KeyError, match="nvlink4|NVLink4"):
        link("nvlnk4")
    with pytest.raises(KeyError, match="bf16"):
        dtype("bf61")


def test_a_miss_finds_its_close_matches_only_when_the_message_is_shown(monkeypatch):
    # Generating a variant tries a derived entry's name in every catalog and catches the misses;
    # the close-match search behind the message must not run for those.
    import difflib

    searches = []
    real = difflib.get_close_matches
    monkeypatch.setattr(
        difflib, "get_close_matches", lambda *a, **k: searches.append(a) or real(*a, **k)
    )
    with pytest.raises(KeyError) as caught:
        accelerator("H10O")
    assert searches == []
    assert "did you mean 'H100" in str(caught.value)
    assert len(searches) == 1
    assert str(caught.value.args[0]).startswith("unknown accelerator 'H10O'")


def test_a_miss_shown_again_does_not_search_again(monkeypatch):
    import difflib

    searches = []
    real = difflib.get_close_matches
    monkeypatch.setattr(
        difflib, "get_close_matches", lambda *a, **k: searches.append(a) or real(*a, **k)
    )
    with pytest.raises(KeyError) as caught:
        accelerator("H10O")
    shown = [str(caught.value), repr(caught.value), str(caught.value.args[0])]
    assert all("did you mean 'H100" in text for text in shown)
    assert len(searches) == 1


def test_v100_has_no_bf16_and_the_error_lists_what_it_supports():
    with pytest.raises(KeyError, match="fp16"):
        accelerator("V100").peak("bf16")


def test_fp8_variants_share_the_fp8_tensor_rate():
    h100 = accelerator("H100")
    assert h100.peak("fp8") == h100.peak("e5m2") == 1978.9e12


def test_dtype_names_and_aliases():
    assert dtype("fp8").name == "fp8-e4m3"
    assert dtype("E4M3") is dtype("fp8")
    assert dtype("e5m2").name == "fp8-e5m2"
    assert dtype("BFloat16").name == "bf16"
    assert {d.name for d in dtypes()} >= {
        "fp64",
        "fp32",
        "tf32",
        "bf16",
        "fp16",
        "fp8-e4m3",
        "fp8-e5m2",
        "int8",
        "int4",
        "fp4",
        "nf4",
    }


@pytest.mark.parametrize(
    ("name", "bits", "nbytes", "max_finite", "step"),
    [
        ("fp32", 32, 4, 3.4028234663852886e38, 2**-23),
        ("tf32", 19, 4, None, 2**-10),
        ("bf16", 16, 2, 3.3895313892515355e38, 2**-7),
        ("fp16", 16, 2, 65504.0, 2**-10),
        ("fp8", 8, 1, 448.0, 0.125),
        ("e5m2", 8, 1, 57344.0, 0.25),
        ("int8", 8, 1, 127.0, 1.0),
        ("int4", 4, 0.5, 7.0, 1.0),
        ("fp4", 4, 0.5, 6.0, 0.5),
        ("nf4", 4, 0.5, 1.0, None),
    ],
)
def test_dtype_layouts_match_the_standards(name, bits, nbytes, max_finite, step):
    fmt = dtype(name)
    assert (fmt.bits, fmt.bytes) == (bits, nbytes)
    if max_finite is not None:
        assert fmt.max_finite == max_finite
    if step is not None:
        assert fmt.step_near_one == step


def test_fp32_max_matches_the_platform_float32():
    import struct

    largest = struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0]
    assert dtype("fp32").max_finite == largest


@pytest.mark.parametrize("mdl", models(), ids=lambda m: m.key)
def test_parameter_counts_follow_from_the_architecture(mdl):
    assert count_params(mdl) == mdl.params
    assert count_params(mdl, active=True) == mdl.active_params
    if mdl.kv_lora_rank is None:
        # Latent attention decompresses to heads wider than the model (DeepSeek: 128 x 128).
        assert mdl.head_dim * mdl.n_heads == mdl.d_model


def test_deepseek_v3_counts_match_its_report_and_its_cache_is_the_latent():
    # 671B total and 37B activated (arXiv:2412.19437, the multi-token-prediction module excluded).
    v3 = model("DeepSeek-V3")
    assert math.isclose(v3.params, 671e9, rel_tol=1e-3)
    assert math.isclose(v3.active_params, 37e9, rel_tol=0.02)
    # One 512-wide latent and a 64-wide rotary key per layer: 61 x 576 x 2 B = 70,272 B per token.
    assert (v3.kv_lora_rank, v3.qk_rope_head_dim, v3.layers) == (512, 64, 61)
    assert v3.experts == 256 and v3.experts_per_token == 8 and v3.shared_experts == 1
    assert v3.sources["kv_lora_rank"] == "hf-deepseek-v3"


def test_mistral_7b_records_its_sliding_window():
    assert model("mistral-7b").sliding_window == 4096
    assert model("llama-2-7b").sliding_window is None


def test_required_models_exist_and_mixtral_is_sparse():
    keys = {m.key for m in models()}
    assert {
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "llama-3.1-405b",
        "mistral-7b",
        "mixtral-8x7b",
    } <= keys
    mixtral = model("Mixtral")
    assert mixtral.active_params < mixtral.params
    assert math.isclose(mixtral.params, 46.7e9, rel_tol=1e-3)
    assert math.isclose(mixtral.active_params, 12.9e9, rel_tol=2e-3)


def test_links_store_per_direction_bandwidth():
    assert link("nvlink4").bandwidth == 450e9
    assert link("NVLink4").bidirectional_bandwidth == 900e9
    assert link("pcie5").bandwidth == 63e9
    assert link("ib-ndr").bandwidth == 400e9 / 8


def test_h100_hierarchy_is_ordered_fastest_first():
    levels = memory_hierarchy()
    assert [lvl.name.split()[0] for lvl in levels] == ["registers", "shared", "L2", "HBM3", "host"]
    bandwidths = [lvl.bandwidth for lvl in levels if lvl.bandwidth is not None]
    latencies = [lvl.latency for lvl in levels if lvl.latency is not None]
    assert bandwidths == sorted(bandwidths, reverse=True)
    assert latencies == sorted(latencies)
    assert levels[3].bandwidth == accelerator("H100").memory_bandwidth


def test_other_parts_reuse_their_own_published_figures():
    levels = memory_hierarchy("A100")
    # Device memory is the reported capacity: 81,920 MiB on an "80 GB" A100.
    assert levels[3].size_bytes == 81920 * 2**20
    assert levels[3].bandwidth == 2039e9
    assert levels[4].bandwidth == link("pcie4").bandwidth


def test_prices_are_dated_snapshots_per_market():
    assert price("H100").market == "specialist"
    assert price("H100", "hyperscaler").dollars_per_hour > price("H100").dollars_per_hour
    for snapshot in prices():
        assert re.fullmatch(r"20\d\d-[01]\d(-[0-3]\d)?", snapshot.date)
    with pytest.raises(KeyError, match="no specialist price"):
        price("V100")
    with pytest.raises(KeyError, match="market"):
        price("H100", "retail")


def test_a_hypothetical_part_is_a_replaced_entry_and_stays_frozen():
    h100 = accelerator("H100")
    faster = dataclasses.replace(h100, memory_bandwidth=6.7e12, peak_flops={"bf16": 2e15})
    assert faster.memory_bandwidth == 2 * h100.memory_bandwidth
    assert faster.peak("bf16") == 2e15
    with pytest.raises(TypeError):
        faster.peak_flops["bf16"] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        h100.memory_bandwidth = 1.0
    assert hash(faster) != hash(h100)


def test_catalog_entries_pickle_and_compare_equal():
    for entry in (accelerator("H100"), model("llama-2-7b"), link("nvlink4"), dtype("bf16")):
        assert pickle.loads(pickle.dumps(entry)) == entry


# Vendors' "256 KB" of SRAM per SM and "50 MB" of L2 are binary sizes (see docs/physics.md).
@pytest.mark.parametrize(
    ("name", "sram_kib", "l2_mib"),
    [("V100", 128, 6), ("T4", 96, 4), ("A100", 192, 40), ("H100", 256, 50), ("B200", 256, 126)],
)
def test_on_chip_sizes_are_stored_in_exact_binary_bytes(name, sram_kib, l2_mib):
    part = accelerator(name)
    assert part.sram_per_sm_bytes == sram_kib * 1024
    assert part.l2_bytes == l2_mib * 1024 * 1024


def test_every_on_chip_size_is_a_whole_number_of_kibibytes():
    for part in accelerators():
        for size in (part.sram_per_sm_bytes, part.l2_bytes):
            assert size is None or size % 1024 == 0, part.key


def test_h100_shared_memory_level_matches_the_register_file_and_the_catalog():
    registers, shared, l2 = memory_hierarchy("H100")[:3]
    assert registers.size_bytes == shared.size_bytes == 256 * 1024
    assert shared.size_bytes == accelerator("H100").sram_per_sm_bytes
    assert l2.size_bytes == accelerator("H100").l2_bytes


def test_an_accelerator_names_its_kind_for_counting():
    assert accelerator("H100").noun() == "GPU" and accelerator("H100").noun(2) == "GPUs"
    assert accelerator("TPU v5e").noun(4) == "TPUs"
    assert accelerator("EPYC 9654").noun(1) == "CPU"
