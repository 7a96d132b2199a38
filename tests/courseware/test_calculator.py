"""The napkin calculator: every figure equals the physics function's; bad input is a message."""

from __future__ import annotations

import pytest
from django.urls import reverse

from content.physics import (
    accelerator,
    cost_per_million_tokens,
    decode_step_time,
    decode_tokens_per_second,
    energy_per_token,
    format_quantity,
    kernel_time,
    kv_cache_bytes,
    min_gpus,
    model_flops_per_token,
    prefill_time,
    price,
    usable_memory_bytes,
    weights_bytes,
)
from courseware.calculator import gpu_group, napkin

URL = "/calculator/"
INPUTS = {
    "model_name": "llama-2-13b",
    "weight_dtype": "bf16",
    "kv_dtype": "bf16",
    "accelerator_name": "h100-sxm",
    "gpus": 1,
    "batch": 8,
    "context": 2048,
    "prompt": 512,
}


def test_one_gpu_figures_equal_direct_physics_calls():
    result = napkin(**INPUTS)
    m, acc, dt = "llama-2-13b", "H100", "bf16"
    weights = weights_bytes(m, dt)
    kv = kv_cache_bytes(m, 2048, dt, 8)
    assert result.figure("weights").value == weights
    assert result.figure("kv_cache").value == kv
    assert result.figure("total").value == weights + kv
    assert result.figure("min_gpus").value == min_gpus(weights + kv, acc)
    assert result.figure("prefill").value == prefill_time(m, acc, dt, 512, 8)
    assert result.figure("decode_step").value == decode_step_time(m, acc, dt, 8, 2048)
    tokens = decode_tokens_per_second(m, acc, dt, 8, 2048)
    assert result.figure("tokens_per_second").value == tokens
    dollars = price(acc).dollars_per_hour
    assert result.figure("cost").value == cost_per_million_tokens(dollars, tokens)
    assert result.figure("energy").value == energy_per_token(m, acc, dt, 8, 2048)
    assert result.fits and result.price.date == price(acc).date


def test_every_figure_shows_its_working_ending_in_its_own_value():
    result = napkin(**INPUTS)
    for figure in result.figures:
        assert figure.working is not None, figure.key
        assert figure.working.steps
        assert figure.working.value == figure.value


def test_several_gpus_pool_memory_bandwidth_and_price():
    result = napkin(**{**INPUTS, "model_name": "llama-2-70b", "gpus": 4})
    group = gpu_group("H100", 4)
    assert group.memory_bandwidth == 4 * accelerator("H100").memory_bandwidth
    step = decode_step_time("llama-2-70b", group, "bf16", 8, 2048)
    assert result.figure("decode_step").value == step
    tokens = 8 / step
    assert result.figure("tokens_per_second").value == pytest.approx(tokens)
    assert result.figure("cost").value == pytest.approx(
        cost_per_million_tokens(4 * price("H100").dollars_per_hour, tokens)
    )


def test_a_model_too_big_for_one_gpu_says_how_many_it_needs():
    result = napkin(**{**INPUTS, "model_name": "llama-2-70b"})
    needed = min_gpus(result.figure("total").value, "H100")
    assert not result.fits and result.min_gpus == needed > 1


def test_a_different_kv_cache_precision_changes_cache_and_step_time():
    result = napkin(**{**INPUTS, "weight_dtype": "int4", "kv_dtype": "fp8"})
    kv = kv_cache_bytes("llama-2-13b", 2048, "fp8", 8)
    weights = weights_bytes("llama-2-13b", "int4")
    assert result.figure("kv_cache").value == kv
    flops = model_flops_per_token("llama-2-13b") * 8
    # int4 weights are dequantized to a 16-bit rate on the H100 (no int4 tensor rate)
    assert result.figure("decode_step").value == kernel_time(flops, weights + kv, "H100", "bf16")


def test_a_price_entered_replaces_the_catalog_price():
    result = napkin(**INPUTS, price_per_hour=2)
    tokens = result.figure("tokens_per_second").value
    assert result.figure("cost").value == cost_per_million_tokens(2, tokens)
    assert not result.price.from_catalog


def test_a_part_without_published_power_says_so():
    result = napkin(**{**INPUTS, "accelerator_name": "tpu-v5e", "model_name": "llama-2-7b"})
    assert result.figure("energy").value is None and "power figure" in result.figure("energy").note


@pytest.mark.django_db
def test_calculator_page_shows_defaults_and_results(client):
    response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    expected = format_quantity(decode_step_time("llama-2-7b", "H100", "fp16", 1, 4096), "s")
    assert expected in html
    assert price("H100").date in html
    assert "<math" in html  # the working as MathML


@pytest.mark.django_db
def test_htmx_request_returns_only_the_results(client):
    response = client.get(URL, {"batch": "16"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<html" not in html and "<form" not in html
    tokens = decode_tokens_per_second("llama-2-7b", "H100", "fp16", 16, 4096)
    assert format_quantity(tokens, "tokens/s") in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, message",
    [
        ({"batch": "0"}, "greater than or equal to 1"),
        ({"batch": "-3"}, "greater than or equal to 1"),
        ({"batch": "ten"}, "Enter a whole number"),
        ({"gpus": "100000000"}, "less than or equal to"),
        ({"context": "10", "prompt": "20"}, "prompt cannot be longer"),
        ({"model": "gpt-9"}, "Unknown model"),
        ({"accelerator": "z9000"}, "Unknown accelerator"),
        ({"weight_dtype": "fp3"}, "Unknown weight precision"),
        ({"price": "-1"}, "greater than or equal to 0.01"),
        ({"accelerator": "v100-sxm2"}, "no price for the V100"),
    ],
)
def test_bad_input_is_a_message_on_the_form(client, query, message):
    response = client.get(URL, query)
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    assert 'class="figures"' not in html


def test_url_name_resolves_to_the_calculator():
    assert reverse("courseware:calculator") == URL


@pytest.mark.django_db
def test_the_page_says_how_many_gpus_a_model_that_does_not_fit_needs(client):
    html = client.get(URL, {"model": "llama-2-70b"}).content.decode()
    needed = min_gpus(
        weights_bytes("llama-2-70b", "fp16") + kv_cache_bytes("llama-2-70b", 4096, "fp16"), "H100"
    )
    within = "within a serving engine&#x27;s budget"
    assert f"Does not fit on 1 GPU {within}: needs at least {needed}</p>" in html


def test_headline_says_fewer_devices_would_do_when_more_were_chosen():
    result = napkin(**{**INPUTS, "gpus": 2})
    assert result.min_gpus == 1
    within = "within a serving engine's budget"
    assert result.headline == f"Fits on the 2 GPUs you chose {within}; 1 would do"
    assert napkin(**INPUTS).headline == f"Fits on 1 GPU {within}"


def test_a_cpu_is_counted_as_cpus_not_gpus():
    result = napkin(**{**INPUTS, "accelerator_name": "epyc-9654", "gpus": 2}, price_per_hour=3)
    assert "GPU" not in result.headline and "CPUs" in result.headline
    assert result.figure("min_gpus").label == "Fewest CPUs that hold it"
    assert "GPU" not in result.figure("min_gpus").working.steps[-1].result


def test_a_part_without_power_is_named_once_not_as_a_group():
    result = napkin(
        **{**INPUTS, "accelerator_name": "tpu-v5e", "model_name": "llama-2-7b", "gpus": 8}
    )
    note = result.figure("energy").note
    assert "8 ×" not in note and "TPU v5e" in note


def test_context_beyond_the_models_trained_length_is_a_warning_not_a_refusal():
    result = napkin(**{**INPUTS, "model_name": "llama-2-7b", "context": 8192, "prompt": 512})
    assert result.figure("kv_cache").value == kv_cache_bytes("llama-2-7b", 8192, "bf16", 8)
    assert any("4096" in w and "context" in w for w in result.warnings)
    assert not napkin(**INPUTS).warnings


def test_a_format_without_a_rate_on_the_part_warns_which_rate_is_used():
    result = napkin(
        **{**INPUTS, "accelerator_name": "v100-sxm2", "weight_dtype": "fp8", "kv_dtype": "fp8"},
        price_per_hour=1,
    )
    assert any("no fp8" in w and "fp16" in w for w in result.warnings)


@pytest.mark.django_db
def test_the_page_shows_the_warnings_and_calls_cpus_devices(client):
    html = client.get(
        URL,
        {"accelerator": "epyc-9654", "price": "3", "context": "8192", "model": "llama-2-7b"},
    ).content.decode()
    assert "4096" in html and 'class="warnings' in html
    assert "per GPU-hour" not in html and "GPUs that hold" not in html


def test_capacity_is_the_serving_budget_beside_the_drivers_total_and_the_label():
    result = napkin(**{**INPUTS, "model_name": "llama-3-70b", "accelerator_name": "H200"})
    capacity = result.figure("capacity")
    h200 = accelerator("H200")
    # vLLM's 0.9 of the 143,156 MiB the CUDA runtime reports, less the activation peak and
    # non-torch memory its own log shows (1.26 + 1.79 GiB): 131.8 GB.
    budget = 0.9 * 143156 * 2**20 - (1.26 + 1.79) * 2**30
    assert capacity.value == usable_memory_bytes(h200) == pytest.approx(budget)
    assert capacity.display == "132 GB (driver: 151 GB; datasheet: 141 GB)"
    assert "143,771 MiB" in capacity.note and "141 GB" in capacity.note
    assert "90%" in capacity.note and "3.3 GB of activations and buffers" in capacity.note
    # 141.1 GB of bf16 weights: more than the label and the serving budget, less than the
    # driver's 150.8 GB: it fits on paper, not in a vLLM server at its defaults (review 00-M2).
    assert weights_bytes("llama-3-70b", "bf16") > capacity.value
    assert not result.fits and result.min_gpus == 2
    assert "serving engine's budget" in result.headline
    on_paper = napkin(
        **{**INPUTS, "model_name": "llama-3-70b", "accelerator_name": "H200", "batch": 1},
        level="driver",
    )
    assert on_paper.fits and "driver's total" in on_paper.headline
    assert on_paper.figure("capacity").value == h200.memory_bytes


def test_capacity_of_several_gpus_scales_every_figure():
    result = napkin(**{**INPUTS, "gpus": 2})
    # Each GPU of a split keeps vLLM's NCCL buffers too: 2 x 71.3 GB, not 2 x one GPU's 73.3 GB.
    assert result.figure("capacity").value == 2 * usable_memory_bytes("H100", gpus=2)
    assert result.figure("capacity").display == "143 GB (driver: 171 GB; datasheet: 160 GB)"
    assert "on each of the 2 GPUs (its own log; NCCL's buffers" in result.figure("capacity").note
    assert "on each of" not in napkin(**INPUTS).figure("capacity").note
    assert gpu_group("H100", 2).memory_label_bytes == 160e9


def test_a_part_without_a_published_reported_figure_says_so():
    result = napkin(**{**INPUTS, "accelerator_name": "H100 PCIe"}, level="driver")
    capacity = result.figure("capacity")
    assert capacity.display == "80 GB"
    assert "No device-reported capacity is published" in capacity.note
    served = napkin(**{**INPUTS, "accelerator_name": "H100 PCIe"}).figure("capacity")
    assert "no runtime total is published" in served.note


@pytest.mark.django_db
def test_the_page_explains_the_capacity_difference_once(client):
    html = client.get(URL, {"gpus": "2"}).content.decode()
    assert html.count("memory is built in binary sizes") == 1
    assert "81,559 MiB = 85.52 GB per GPU" in html
    assert "143 GB (driver: 171 GB; datasheet: 160 GB)" in html


@pytest.mark.django_db
def test_the_page_judges_the_fit_at_the_level_chosen(client):
    query = {"model": "llama-3-70b", "weight_dtype": "bf16", "kv_dtype": "bf16"}
    query |= {"accelerator": "h200", "batch": "1", "context": "1024", "prompt": "16"}
    served = client.get(URL, query).content.decode()
    assert "Does not fit on 1 GPU within a serving engine&#x27;s budget" in served
    driver = client.get(URL, {**query, "level": "driver"}).content.decode()
    assert "Fits on 1 GPU within the driver&#x27;s total" in driver


@pytest.mark.django_db
def test_an_unknown_memory_level_is_a_message_not_an_error(client):
    response = client.get(URL, {"level": "nvidia-smi'; drop table"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Memory counted" in html and 'class="feedback invalid"' in html
