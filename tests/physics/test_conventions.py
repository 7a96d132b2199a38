"""The reviews' physics findings, as catalog facts: L2 is measured on the part it is divided by,
headline link figures are kept as printed beside the per-direction ones, and the critical batch
of weight-only formats uses the arithmetic's ridge."""

import pytest

from content.physics import (
    accelerator,
    critical_batch_size,
    explain,
    link,
    links,
    memory_hierarchy,
    ridge_point,
    source,
)


def test_h100_l2_bandwidth_is_the_same_die_measurement_not_the_pcie_cards():
    registers, shared, l2, hbm, host = memory_hierarchy("H100")
    assert l2.bandwidth == 10e12
    assert l2.sources["bandwidth"] == "rrze-gpu-benches" and source("rrze-gpu-benches").verified
    # Roughly 2-3x HBM on the SXM part, as measured on the H200 (same GH100 die, 132 SMs).
    assert 2 <= l2.bandwidth / hbm.bandwidth <= 3.5
    assert shared.bandwidth > l2.bandwidth > hbm.bandwidth > host.bandwidth


@pytest.mark.parametrize("ln", links(), ids=lambda ln: ln.key)
def test_every_headline_figure_is_cited_and_the_per_direction_figure_stays_the_model(ln):
    assert ln.bidirectional_bandwidth == 2 * ln.bandwidth
    if ln.headline_bandwidth is None:
        assert "headline_bandwidth" not in ln.sources
        return
    assert source(ln.sources["headline_bandwidth"])
    if ln.kind == "network":
        assert not ln.headline_is_bidirectional and ln.headline_bandwidth == ln.bandwidth


def test_pcie_gen5_headline_is_128_both_ways_before_encoding():
    pcie5 = link("pcie5")
    assert pcie5.headline_bandwidth == 128e9 and pcie5.headline_is_bidirectional
    assert pcie5.bidirectional_bandwidth == 126e9  # after 128b/130b encoding
    assert pcie5.bandwidth == 63e9  # what a transfer gets each way, at best
    assert pcie5.headline_bandwidth == pytest.approx(2 * 32e9 * 16 / 8)
    assert pcie5.bandwidth == pytest.approx(32e9 * 16 * 128 / 130 / 8, rel=0.001)


def test_nvlink_headline_is_twice_the_per_direction_rate():
    assert link("nvlink4").headline_bandwidth == 900e9 == 2 * link("nvlink4").bandwidth


def test_weight_only_critical_batch_uses_the_16_bit_ridge():
    ridge = ridge_point("H100", "bf16")
    assert critical_batch_size("H100", "bf16") == pytest.approx(ridge)
    assert critical_batch_size("H100", "int4", compute_dt="bf16") == pytest.approx(ridge / 4)
    assert critical_batch_size("H100", "fp8", compute_dt="bf16") == pytest.approx(ridge / 2)
    # W8A8: weights and arithmetic both in fp8 keep the batch where bf16 had it.
    assert critical_batch_size("H100", "fp8") == pytest.approx(ridge, rel=1e-3)
    with pytest.raises(KeyError):
        critical_batch_size("H100", "int4")  # no int4 tensor rate: say which arithmetic
    working = explain("critical_batch_size", "H100", "int4", compute_dt="bf16")
    assert working.value == critical_batch_size("H100", "int4", "bf16")
    assert "int4 weights, bf16 arithmetic" in working.title


def test_h100_pcie_and_sxm_are_not_mixed_in_the_catalog():
    assert accelerator("H100 PCIe").memory_bandwidth == 2.0e12
    assert accelerator("H100").memory_bandwidth == 3.35e12
