"""The overhead regime: launch costs, CUDA graphs, and when issuing kernels is the bottleneck."""

import pytest

from content.physics import (
    gpu_busy_time,
    is_overhead_bound,
    kernel_time,
    kernel_time_with_overhead,
    launch_overhead,
    measurement,
    time_with_overhead,
)


def test_launch_costs_are_the_cited_measurements():
    assert measurement("launch/eager-cpu").value == 5e-6  # HTA: 5-20 µs
    assert measurement("launch/eager-cpu-high").value == 20e-6
    assert measurement("launch/enqueue").value == 2.65e-6  # ocannl #488
    assert measurement("launch/graph").value == 15e-6
    assert measurement("launch/graph-node").value == 0.58e-6


def test_three_hundred_kernels_three_ways():
    assert launch_overhead(300, "eager") == pytest.approx(300 * 5e-6)
    assert launch_overhead(300, "stream") == pytest.approx(300 * 2.65e-6)
    assert launch_overhead(300, "graph") == pytest.approx(15e-6 + 300 * 0.58e-6)
    assert launch_overhead(0, "graph") == pytest.approx(15e-6)
    assert launch_overhead(300, "graph") < launch_overhead(300, "stream")


def test_issuing_hides_behind_long_kernels_and_not_behind_short_ones():
    # Ten 100-µs kernels: the GPU is the limit. Ten 1-µs kernels: the CPU is.
    # The GPU pays 0.58 µs per kernel in every mode; the CPU's issuing overlaps it.
    assert gpu_busy_time(1e-3, 10) == pytest.approx(1e-3 + 5.8e-6)
    assert time_with_overhead(1e-3, 10, "stream") == pytest.approx(1e-3 + 5.8e-6)
    assert not is_overhead_bound(1e-3, 10, "stream")
    assert time_with_overhead(10e-6, 10, "stream") == pytest.approx(26.5e-6)
    assert is_overhead_bound(10e-6, 10, "eager")
    # A graph adds its one launch to the GPU's busy time, and is never overhead bound.
    assert time_with_overhead(1e-3, 10, "graph") == pytest.approx(1e-3 + 15e-6 + 5.8e-6)
    assert not is_overhead_bound(10e-6, 10, "graph")


def test_a_graph_is_never_slower_than_a_stream_by_more_than_its_launch():
    for gpu in (1e-6, 1e-4, 4e-3):
        for kernels in (1, 40, 400):
            graph = time_with_overhead(gpu, kernels, "graph")
            assert graph <= time_with_overhead(gpu, kernels, "stream") + 15e-6 + 1e-15
            assert graph <= time_with_overhead(gpu, kernels, "eager") + 15e-6 + 1e-15


def test_a_tiny_kernel_costs_its_launch_not_its_roofline_time():
    roofline = kernel_time(1024, 3 * 1024 * 2, "H100", "bf16")
    assert roofline < 10e-9
    assert kernel_time_with_overhead(1024, 3 * 1024 * 2, "H100", "bf16") == pytest.approx(2.65e-6)


@pytest.mark.parametrize("kernels", [-1, 1.5])
def test_kernel_counts_must_be_whole(kernels):
    with pytest.raises(ValueError, match="whole"):
        launch_overhead(kernels)


def test_unknown_modes_and_negative_times_are_refused():
    with pytest.raises(ValueError, match="eager, stream, graph"):
        launch_overhead(10, "async")
    with pytest.raises(ValueError):
        time_with_overhead(-1.0, 10)


def test_cuda_graphs_measured_in_llama_cpp_save_under_a_millisecond_per_token():
    before = measurement("decode/llamacpp-llama-2-7b-q4km").value
    after = measurement("decode/llamacpp-llama-2-7b-q4km-graphs").value
    saved = 1 / before - 1 / after
    assert 0.8e-3 < saved < 0.9e-3
