"""Attention on the roofline and the KV cache's reductions: GQA/MQA, latent attention,
sliding windows and quantized caches."""

import dataclasses
import math

import pytest

from content.physics import (
    attention_flops,
    causal_attention_flops,
    decode_attention_intensity,
    flash_attention_hbm_bytes,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    kv_cache_bytes_per_token_mha,
    kv_cache_reduction,
    kv_cache_tokens,
    model,
    model_flops_per_token,
    standard_attention_hbm_bytes,
)


def test_decode_attention_intensity_is_the_query_group_over_the_bytes():
    # Per cached token and layer: 2·h·2·d FLOP against 2·h_kv·d·b bytes.
    assert decode_attention_intensity("llama-2-7b", "bf16") == pytest.approx(1.0)
    assert decode_attention_intensity("llama-3-70b", "bf16") == pytest.approx(8.0)
    assert decode_attention_intensity("llama-3-70b", "fp8") == pytest.approx(16.0)
    mqa = dataclasses.replace(model("llama-2-7b"), n_kv_heads=1)
    assert decode_attention_intensity(mqa, "bf16") == pytest.approx(32.0)


def test_latent_attention_makes_decode_attention_intensity_hundreds():
    # Absorbed MLA: 2·128·(512 + 64) + 2·128·512 FLOP against (512 + 64)·2 bytes.
    expected = (2 * 128 * 576 + 2 * 128 * 512) / (576 * 2)
    assert decode_attention_intensity("deepseek-v3", "bf16") == pytest.approx(expected)
    assert expected > 240


def test_attention_flops_beside_the_weights_of_one_decode_token():
    flops = attention_flops("llama-2-7b", 1, 4096)
    assert flops == 2 * 32 * 32 * 256 * 4096
    assert flops < 0.2 * model_flops_per_token("llama-2-7b")
    assert attention_flops("llama-2-7b", 1, 4096, batch=8) == 8 * flops
    with pytest.raises(ValueError):
        attention_flops("llama-2-7b", -1, 4096)


def test_kv_reductions_against_full_multi_head_attention():
    assert kv_cache_reduction("llama-2-7b") == 1
    assert kv_cache_reduction("llama-3-70b") == 8
    assert kv_cache_reduction("llama-3-70b", "fp8") == 16
    assert kv_cache_reduction("llama-3-70b", "int4") == 32
    # DeepSeek-V3: 61·128·(192 + 128)·2 bytes with full MHA against 61·576·2 with the latent.
    v3 = kv_cache_reduction("deepseek-v3")
    assert kv_cache_bytes_per_token_mha("deepseek-v3", "bf16") == 61 * 128 * 320 * 2
    assert v3 == pytest.approx(61 * 128 * 320 / (61 * 576))


def test_deepseek_v3_caches_about_70_kb_per_token():
    assert kv_cache_bytes_per_token("deepseek-v3", "bf16") == 70_272
    assert kv_cache_bytes("deepseek-v3", 1000, "bf16", 2) == 70_272 * 1000 * 2


def test_sliding_window_caps_the_cache_only_when_asked():
    assert kv_cache_tokens("mistral-7b", 32768) == 4096
    assert kv_cache_tokens("mistral-7b", 1000) == 1000
    assert kv_cache_tokens("llama-2-7b", 32768) == 32768
    whole = kv_cache_bytes("mistral-7b", 32768, "bf16")
    windowed = kv_cache_bytes("mistral-7b", 32768, "bf16", window=True)
    assert windowed == whole / 8


def test_flash_attention_never_writes_the_score_matrix():
    n, d = 8192, 128
    standard = standard_attention_hbm_bytes(n, d, "bf16")
    assert standard == (4 * n * d + 4 * n * n) * 2
    flash = flash_attention_hbm_bytes(n, d, "bf16", block_rows=128)
    assert flash == (2 * n * d + 2 * n * d * math.ceil(n / 128)) * 2
    # With 128-row query blocks and d = 128 the re-read K and V cost about what the N×N
    # matrices did: half the traffic. At d = 64 (GPT-2's heads) about a quarter.
    assert flash == pytest.approx(standard / 2, rel=0.02)
    small = flash_attention_hbm_bytes(n, 64, "bf16") / standard_attention_hbm_bytes(n, 64, "bf16")
    assert small == pytest.approx(0.25, rel=0.02)
    # Bigger query blocks (more on-chip memory) cut K and V re-reads proportionally.
    assert flash_attention_hbm_bytes(n, d, "bf16", block_rows=256) < 0.55 * flash
    assert flash_attention_hbm_bytes(n, d, "bf16", heads=32, batch=2) == 64 * flash
    with pytest.raises(ValueError):
        flash_attention_hbm_bytes(n, d, "bf16", block_rows=0)


def test_one_decoder_block_of_llama_2_70b():
    from content.physics import layer_params, model

    m = model("llama-2-70b")
    block = layer_params(m)
    assert block == 855_654_400
    # The whole model is the blocks plus embeddings, LM head and the final norm.
    assert m.params == m.layers * block + 2 * m.vocab_size * m.d_model + m.d_model
    deepseek = layer_params("deepseek-v3", active=True)
    assert deepseek < layer_params("deepseek-v3")


def test_causal_attention_flops_counts_each_query_against_itself_and_earlier_keys():
    # Sixth review C02-1: a 1,024-token prompt of Llama-2-7B does 1,024 · 1,025 / 2 pairs of
    # 4 · 128 FLOPs per head and layer, 8.6 GFLOP per layer, not the 17.2 of the full square.
    per_layer = causal_attention_flops("llama-2-7b", 1024, 1024) / 32
    assert per_layer == 32 * 4 * 128 * 1024 * 1025 / 2
    assert per_layer / (attention_flops("llama-2-7b", 1024, 1024) / 32) == pytest.approx(
        1025 / 2048
    )
    # One decode token meets the whole context, as the non-causal count says.
    assert causal_attention_flops("llama-2-7b", 1, 4096, batch=8) == attention_flops(
        "llama-2-7b", 1, 4096, batch=8
    )
    # A chunk of 256 queries after 768 cached tokens: 256 · 768 + 256 · 257 / 2 pairs.
    assert causal_attention_flops("llama-2-7b", 256, 1024) == 2 * 32 * 32 * 256 * (
        256 * 768 + 256 * 257 / 2
    )
    with pytest.raises(ValueError, match="must not exceed"):
        causal_attention_flops("llama-2-7b", 2048, 1024)
    with pytest.raises(ValueError, match="negative"):
        causal_attention_flops("llama-2-7b", -1, 1024)
