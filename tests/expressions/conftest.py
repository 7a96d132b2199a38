"""A small stand-in catalog, so the expression language is tested on its own terms."""

from __future__ import annotations

import dataclasses

import pytest

from content.expressions import MATH_HELPERS, policy


@dataclasses.dataclass(frozen=True)
class FakeAccelerator:
    name: str
    memory_bandwidth: float
    peak_flops: dict
    sources: tuple = ("datasheet-x",)
    _secret: str = "hidden"

    def peak(self, dtype: str) -> float:
        return self.peak_flops[dtype]

    def citations(self) -> tuple:
        return self.sources


FakeAccelerator.__module__ = "content.physics.fake_catalog"


@pytest.fixture(autouse=True)
def _fake_method_limits(monkeypatch):
    """The stand-in's methods declare their limits, as the real catalog's do
    (content/limits.py): an undeclared method is refused."""
    from content.expressions import namespace
    from content.expressions.limits import Limits, Text

    monkeypatch.setitem(namespace._METHOD_LIMITS, "FakeAccelerator.peak", Limits(dtype=Text(16)))
    monkeypatch.setitem(namespace._METHOD_LIMITS, "FakeAccelerator.citations", Limits())


CATALOG = {
    "h100": FakeAccelerator("H100 SXM", 3.35e12, {"bf16": 989.4e12}, ("nvidia-h100",)),
    "a100": FakeAccelerator("A100 SXM", 2.039e12, {"bf16": 312e12}, ("nvidia-a100",)),
}


def fake_accelerator(name: str) -> FakeAccelerator:
    try:
        return CATALOG[name.lower()]
    except KeyError:
        raise KeyError(f"unknown accelerator {name!r}") from None


def fake_ridge_point(acc, dt) -> float:
    acc = fake_accelerator(acc) if isinstance(acc, str) else acc
    return acc.peak(dt) / acc.memory_bandwidth


def fake_format_number(x: float, sig: int = 3) -> str:
    return f"{x:.{sig}g}"


def fake_format_quantity(value, unit, *, sig=3, approx=False, fixed=False) -> str:
    text = f"{value:.{sig}g} {unit}" + (" (fixed)" if fixed else "")
    return ("~" if approx else "") + text


@pytest.fixture
def names() -> dict:
    return {
        **MATH_HELPERS,
        "accelerator": fake_accelerator,
        "ridge_point": fake_ridge_point,
        "format_number": fake_format_number,
        "format_quantity": fake_format_quantity,
        "acc": "H100",
        "tokens": 4096,
    }


@pytest.fixture(autouse=True)
def trust_fake_catalog(monkeypatch):
    monkeypatch.setattr(
        policy, "TRUSTED_MODULE_PREFIXES", ("content.physics", "content.physics.fake_catalog")
    )
