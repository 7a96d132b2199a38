"""In-GPU models: peak from clocks, occupancy, Little's law, coalescing and tile intensity."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    bytes_in_flight,
    coalescing_efficiency,
    occupancy,
    peak_flops,
    peak_flops_from_clock,
    source,
    tile_intensity,
)
from content.physics.kernels import LIMITERS

SM_FIELDS = ("registers_per_sm", "max_warps_per_sm", "max_blocks_per_sm")
CLOCKED = ("V100", "A100", "A100 40GB", "H100", "H100 PCIe", "H200", "L4", "T4", "A10", "RTX 4090")


@pytest.mark.parametrize("name", CLOCKED)
def test_sms_times_tensor_rate_times_clock_reproduces_the_datasheet_peak(name):
    acc = accelerator(name)
    for dt, per_clock in acc.tensor_flops_per_clock_per_sm.items():
        derived = peak_flops_from_clock(acc.sm_count, per_clock, acc.boost_clock_hz)
        # Datasheets round to 3-4 figures (H100: 989.4 from 989.43).
        assert derived == pytest.approx(peak_flops(acc, dt), rel=0.012), dt
    for field_name in ("boost_clock_hz", "tensor_flops_per_clock_per_sm"):
        assert source(acc.sources[field_name])


def test_h100_peak_from_clock_is_989_4_tflops():
    assert peak_flops_from_clock(132, 4096, 1.83e9) == pytest.approx(989.43e12, rel=1e-4)
    with pytest.raises(ValueError):
        peak_flops_from_clock(132, -1, 1.83e9)


@pytest.mark.parametrize("acc", [a for a in CLOCKED] + ["B200"])
def test_nvidia_parts_carry_cited_per_sm_limits(acc):
    part = accelerator(acc)
    for field_name in (*SM_FIELDS, "shared_memory_per_sm_bytes"):
        assert getattr(part, field_name) is not None
        assert source(part.sources[field_name]).verified is False  # guide table not re-read
    assert part.registers_per_sm == 65536


def test_non_nvidia_parts_have_no_sm_limits_and_occupancy_says_so():
    assert accelerator("MI300X").max_warps_per_sm is None
    with pytest.raises(ValueError, match="per-SM limits"):
        occupancy("MI300X", 256, 32)


def test_occupancy_full_when_nothing_binds():
    occ = occupancy("H100", 256, 32)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.fraction) == (8, 64, 1.0)
    assert occ.limiter == "warps"


def test_occupancy_limited_by_registers():
    # 64 regs x 32 threads = 2048 per warp; 65536 / 2048 = 32 warps = 4 blocks of 8 warps.
    occ = occupancy("H100", 256, 64)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limiter) == (4, 32, "registers")
    assert occ.fraction == 0.5


def test_registers_are_allocated_in_units_of_256_per_warp():
    # 33 regs/thread rounds up to 40 (1280 per warp): 51 warps -> 6 blocks of 8.
    assert occupancy("H100", 256, 33).blocks_per_sm == 6
    assert occupancy("H100", 256, 40).blocks_per_sm == 6


def test_occupancy_limited_by_shared_memory_and_blocks():
    occ = occupancy("H100", 128, 32, shared_bytes_per_block=100 * 1024)
    assert (occ.blocks_per_sm, occ.limiter) == (2, "shared memory")
    tiny = occupancy("H100", 32, 16)
    assert (tiny.blocks_per_sm, tiny.limiter, tiny.fraction) == (32, "blocks", 0.5)
    with pytest.raises(ValueError):
        occupancy("H100", 128, 32, shared_bytes_per_block=300 * 1024)
    with pytest.raises(ValueError):
        occupancy("H100", 2048, 32)
    with pytest.raises(ValueError):
        occupancy("H100", 128, 256)


@given(
    threads=st.integers(1, 1024),
    regs=st.integers(0, 255),
    shared=st.integers(0, 200 * 1024),
    acc=st.sampled_from(["H100", "A100", "T4", "L4"]),
)
def test_occupancy_never_exceeds_any_resource(threads, regs, shared, acc):
    part = accelerator(acc)
    if shared > part.shared_memory_per_sm_bytes:
        return
    occ = occupancy(part, threads, regs, shared)
    warps_per_block = math.ceil(threads / 32)
    assert occ.limiter in LIMITERS
    assert 0 <= occ.fraction <= 1
    assert occ.warps_per_sm == occ.blocks_per_sm * warps_per_block <= part.max_warps_per_sm
    assert occ.blocks_per_sm <= part.max_blocks_per_sm
    assert occ.blocks_per_sm * shared <= part.shared_memory_per_sm_bytes
    assert occ.blocks_per_sm * warps_per_block * math.ceil(regs / 8) * 256 <= 65536
    # One more block would break some limit.
    more = occ.blocks_per_sm + 1
    assert (
        more * warps_per_block > part.max_warps_per_sm
        or more > part.max_blocks_per_sm
        or more * shared > part.shared_memory_per_sm_bytes
        or more * warps_per_block * math.ceil(regs / 8) * 256 > 65536
    )


def test_littles_law():
    assert bytes_in_flight(3.35e12, 350e-9) == pytest.approx(1.1725e6)
    assert bytes_in_flight(0, 1) == 0
    with pytest.raises(ValueError):
        bytes_in_flight(1e12, -1)


@pytest.mark.parametrize(
    ("stride", "element_bytes", "expected"),
    [
        (1, 4, 1.0),
        (2, 4, 0.5),
        (4, 4, 0.25),
        (8, 4, 0.125),
        (100, 4, 0.125),
        (1, 2, 1.0),
        (1, 1, 1.0),
        (32, 1, 1 / 32),
        (1, 8, 1.0),
        (2, 8, 0.5),
        (1, 64, 1.0),
        (2, 64, 1.0),
        (3, 48, 0.75),
    ],
)
def test_coalescing_efficiency(stride, element_bytes, expected):
    assert coalescing_efficiency(stride, element_bytes) == pytest.approx(expected)


@given(st.integers(1, 64), st.sampled_from([1, 2, 4, 8, 16]))
def test_coalescing_is_a_fraction_that_never_improves_with_stride(stride, element_bytes):
    e = coalescing_efficiency(stride, element_bytes)
    assert 0 < e <= 1
    assert coalescing_efficiency(stride + 1, element_bytes) <= e + 1e-12


def test_coalescing_rejects_bad_strides():
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError):
            coalescing_efficiency(bad, 4)


def test_tile_intensity():
    assert tile_intensity(128, 128, "bf16") == 64
    assert tile_intensity(128, 256, "fp8") == 2 * 128 * 256 / 384
    assert tile_intensity(1, 1, "fp32") == 0.25
    with pytest.raises(ValueError):
        tile_intensity(0, 128, "bf16")


@given(st.integers(1, 512), st.integers(1, 512))
def test_bigger_tiles_reuse_more(tm, tn):
    assert tile_intensity(tm + 1, tn, "bf16") > tile_intensity(tm, tn, "bf16")
    assert tile_intensity(tm, tn, "bf16") == tile_intensity(tn, tm, "bf16")
