"""Device memory: the datasheet label and the capacity the device reports, each with its source."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import accelerator, accelerators, memory_fits, min_gpus, source, weights_bytes

MiB = 2**20

# nvidia-smi / rocm-smi memory.total, as the catalog's sources publish them.
REPORTED = {
    "a100-sxm-40gb": 40960 * MiB,
    "a100-sxm-80gb": 81920 * MiB,
    "h100-sxm": 81559 * MiB,
    "h200": 143771 * MiB,
    "b200": 183359 * MiB,
    "l4": 23034 * MiB,
    "t4": 15360 * MiB,
    "a10": 23028 * MiB,
    "rtx-4090": 24564 * MiB,
    "mi300x": 205822885888,
}
LABELS = {"h100-sxm": 80e9, "a100-sxm-80gb": 80e9, "a100-sxm-40gb": 40e9, "h200": 141e9}


@pytest.mark.parametrize("acc", accelerators(), ids=lambda a: a.key)
def test_every_part_has_both_capacities_each_with_a_known_source(acc):
    assert acc.memory_bytes > 0 and acc.memory_label_bytes > 0
    for field_name in ("memory_bytes", "memory_label_bytes"):
        key = acc.sources.get(field_name)
        assert key is not None, f"{acc.key}.{field_name} has no source"
        assert source(key).key == key
    if acc.memory_reported_published:
        # Binary-built memory reports more than its decimal label, never less.
        assert acc.memory_bytes > acc.memory_label_bytes
    else:
        # No published reported total: fall back to the label, and say so in the notes.
        assert acc.memory_bytes == acc.memory_label_bytes
        if acc.kind == "gpu":
            assert "label" in acc.notes


@pytest.mark.parametrize(("key", "reported"), sorted(REPORTED.items()))
def test_reported_capacities_are_the_published_device_totals(key, reported):
    acc = accelerator(key)
    assert acc.memory_reported_published
    assert acc.memory_bytes == reported
    assert acc.sources["memory_bytes"] != acc.sources["memory_label_bytes"]


@pytest.mark.parametrize(("key", "label"), sorted(LABELS.items()))
def test_labels_are_the_datasheet_figures_in_decimal_bytes(key, label):
    assert accelerator(key).memory_label_bytes == label


def test_an_80_gb_h100_shows_up_as_79_6_gib_not_74_5():
    h100 = accelerator("H100")
    assert h100.memory_bytes == 85_520_809_984
    assert h100.memory_bytes / 2**30 == pytest.approx(79.65, abs=0.01)
    assert h100.memory_label_bytes / 2**30 == pytest.approx(74.51, abs=0.01)


def test_parts_without_a_published_reported_total_are_flagged():
    for key in ("h100-pcie", "mi325x", "tpu-v5e"):
        acc = accelerator(key)
        assert not acc.memory_reported_published
        assert acc.memory_bytes == acc.memory_label_bytes


def test_a_32_gb_v100_reports_32510_mib_as_nvidia_smi_shows():
    # Review 00-02 ninth, I-1/I-6: nvidia-smi's total is published (insightface's README), so the
    # driver figure is 34.1 GB, not the 32 GB label, and the serving budget follows it.
    v100 = accelerator("V100")
    assert v100.memory_reported_published
    assert v100.memory_bytes == 32510 * 2**20
    assert source(v100.sources["memory_bytes"]).verified
    assert v100.memory_bytes > v100.memory_label_bytes


def test_llama_3_70b_in_bf16_fits_one_h200_on_paper_but_not_at_vllms_budget():
    weights = weights_bytes("llama-3-70b", "bf16")
    # The driver's total leaves 9.6 GB, what PyTorch can allocate 8.7 GB; vLLM's 0.9 of the
    # runtime's 143,156 MiB is 135.1 GB, short of the 141.1 GB of weights (the review's 00-M2).
    assert memory_fits(weights, "H200", level="driver")
    assert accelerator("H200").memory_bytes - weights == pytest.approx(9.6e9, abs=0.1e9)
    assert memory_fits(weights, "H200", level="framework")
    assert not memory_fits(weights, "H200")
    # Against the label it would not have fitted either: the old premise of the book.
    assert weights > accelerator("H200").memory_label_bytes


def test_fits_uses_the_reported_capacity_times_devices_at_the_driver_level():
    h100 = accelerator("H100")
    assert memory_fits(h100.memory_bytes, h100, level="driver")
    assert not memory_fits(h100.memory_bytes + 1e6, h100, level="driver")
    assert memory_fits(2 * h100.memory_bytes, h100, devices=2, level="driver")
    assert memory_fits(81e9, "H100", level="driver")  # more than the "80 GB" label
    assert not memory_fits(81e9, "H100")  # but more than vLLM's 76.5 GB budget
    with pytest.raises(ValueError):
        memory_fits(1, "H100", devices=0)


def test_min_gpus_agrees_with_memory_fits():
    for need in (10e9, 85e9, 86e9, 171e9, 400e9):
        n = min_gpus(need, "H100")
        assert memory_fits(need, "H100", n)
        assert n == 1 or not memory_fits(need, "H100", n - 1)


def test_label_defaults_to_the_capacity_for_a_hypothetical_part():
    h100 = accelerator("H100")
    bigger = dataclasses.replace(h100, memory_bytes=100e9, memory_label_bytes=None)
    assert bigger.memory_label_bytes == 100e9


@given(st.floats(1, 2e12), st.integers(1, 16), st.sampled_from(["H100", "A100", "L4", "MI300X"]))
def test_memory_fits_is_exactly_min_gpus_at_most_devices(need, devices, acc):
    assert memory_fits(need, acc, devices) == (min_gpus(need, acc) <= devices)
