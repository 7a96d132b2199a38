"""Every function an author can call from an expression declares its argument limits, and they
are checked before it runs (issue 33, S2).

The review's case: `coalescing_efficiency` loops over its `warp_size` argument and keeps a set
of every sector the warp touches, so `coalescing_efficiency(1, 4, 1, 10**6)` in a 3 s preview
ran 5.8 s and grew the web process by about 275 MB. The walk below fails for any name another
helper registers later without limits (or with a parameter its declaration does not cover).
"""

from __future__ import annotations

import time
import tracemalloc

import pytest

from content import subject
from content.expressions import ExpressionError, configure_subject, default_namespace, evaluate
from content.expressions.limits import Entry, Flag, Limits, Number, Optional, Text
from content.expressions.namespace import declared_limits, registered_functions
from content.limits import LIMITS

REVIEW_CASE = "coalescing_efficiency(1, 4, 1, 10**6)"


def test_every_registered_function_declares_limits_for_every_parameter():
    from content.expressions.limits import parameter_names

    missing = []
    for name, func in sorted(registered_functions().items()):
        declared = declared_limits(name)
        if declared is None:
            missing.append(f"{name}: no limits declared")
            continue
        uncovered = [p for p in parameter_names(func) if p not in declared.params]
        if uncovered:
            missing.append(f"{name}: no limit for {', '.join(uncovered)}")
    assert not missing, "\n".join(missing)


def test_the_table_names_no_function_that_is_not_registered():
    # A renamed physics function must take its declaration along.
    assert {name for name in LIMITS if "." not in name} <= set(registered_functions())


def _catalog_methods():
    """Every public method of every frozen dataclass of the physics package ("Class.method")."""
    import dataclasses
    import importlib
    import inspect
    import pkgutil

    import content.physics as physics

    found = {}
    for info in pkgutil.walk_packages(physics.__path__, "content.physics."):
        for cls in vars(importlib.import_module(info.name)).values():
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                continue
            if not cls.__module__.startswith("content.physics"):
                continue
            for attr in dir(cls):
                if attr.startswith("_"):
                    continue
                try:
                    member = inspect.getattr_static(cls, attr)
                except AttributeError:
                    continue
                if inspect.isfunction(member):
                    found[f"{cls.__name__}.{attr}"] = getattr(cls, attr)
    return found


def test_every_method_of_a_catalog_entry_declares_limits_too():
    from content.expressions.limits import parameter_names
    from content.expressions.namespace import method_limits

    declared = method_limits()
    missing = []
    for name, func in sorted(_catalog_methods().items()):
        if name not in declared:
            missing.append(f"{name}: no limits declared")
            continue
        params = [p for p in parameter_names(func) if p != "self"]
        uncovered = [p for p in params if p not in declared[name].params]
        if uncovered:
            missing.append(f"{name}: no limit for {', '.join(uncovered)}")
    assert not missing, "\n".join(missing)


def test_a_method_call_is_checked_like_a_function_call():
    assert evaluate("accelerator('H100').peak('bf16')") > 0
    with pytest.raises(ExpressionError, match="Accelerator.noun: count must be between 0"):
        evaluate("accelerator('H100').noun(10**20)")


def test_the_reviews_warp_of_a_million_threads_is_refused_before_it_runs():
    tracemalloc.start()
    started = time.process_time()
    with pytest.raises(ExpressionError) as refused:
        evaluate(REVIEW_CASE)
    spent = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "coalescing_efficiency: warp_size must be between 1 and 1,024 (got 1,000,000)" in str(
        refused.value
    )
    # Refused before the loop: no sector set was built (the old code peaked at ~275 MB).
    assert peak < 5 * 2**20, peak
    assert spent < 1.0


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("coalescing_efficiency(1, 1024, 1, 1024)", "at most 131,072 are allowed"),
        ("coalescing_efficiency(1, 4, 0.5)", "sector_bytes must be a whole number"),
        ("coalescing_efficiency(10**20, 4)", "stride_elements must be between"),
        ("occupancy('H100', 10**9, 32)", "threads_per_block must be between 1 and 1,024"),
        ("kv_cache_bytes('llama-2-7b', 1e40, 'bf16')", "tokens must be between 0 and"),
        ("format_number(3.14159, 10**6)", "sig must be between 1 and 15"),
        ("accelerator('" + "H" * 150 + "')", "name must be at most 64 characters (got 150)"),
        ("speculative_expected_tokens(0.5, 2.5)", "draft_tokens must be a whole number"),
        ("round(1.5, 10**6)", "ndigits must be between -30 and 30"),
        ("kernel_time(1e12, [1, 2], 'H100', 'bf16')", "bytes_moved must be a number, not a list"),
        ("explain('coalescing_efficiency', 1, 4, 1, 10**6)", "warp_size must be between"),
        ("format_quantity(1.0, 'B', sig=3, group=2)", "group must be True or False"),
        (
            "chunked_prefill_ttft('llama-3-8b', 'H100', 'bf16', 1e9, 1)",
            "chunked_prefill_ttft: a prompt of 1,000,000,000 tokens in chunks of 1 takes",
        ),
        ("allreduce_time(1e6, 8, 'nvlink4', 'ring', 1e9)", "step_latency must be between 0"),
        ("quantized_max_batch('llama-3-8b', 'H100', 'gptq-int4-g128', 1e40)", "context must be"),
        ("experts_touched(64, 256, 8.5e12)", "top_k must be between 0 and"),
    ],
)
def test_a_value_out_of_bounds_is_refused_with_its_function_argument_and_bound(expression, message):
    with pytest.raises(ExpressionError) as refused:
        evaluate(expression)
    assert message in str(refused.value)


def test_values_inside_the_limits_still_compute():
    assert evaluate("coalescing_efficiency(1, 4)") == 1.0
    assert evaluate("coalescing_efficiency(2, 4)") == 0.5
    assert evaluate("coalescing_efficiency(8, 4, 32, 1024)") == 0.125
    assert evaluate("occupancy('H100', 256, 32).limiter") in ("warps", "blocks")
    assert evaluate("min(3, 1, 2) + max([1, 5]) + len([1, 2]) + sum([1, 2])") == 1 + 5 + 2 + 3
    assert evaluate("explain('kernel_time', 1e12, 1e9, 'H100', 'bf16').value") > 0
    assert evaluate("chunked_prefill_ttft('llama-3-8b', 'H100', 'bf16', 2000, 512)") > 0
    assert evaluate("allreduce_time(2**15, 8, 'nvlink4', 'one-shot', 5e-6)") > 5e-6
    assert evaluate("api_price('deepseek-v3').citations()")


def test_a_callable_handed_over_without_limits_is_refused_when_called():
    try:
        configure_subject(
            names={"unbounded_loop": lambda n: sum(range(n)), "declared": lambda n: n},
            trusted_modules=(),
            format_number=lambda value, sig=3: str(value),
            format_quantity=lambda value, unit, **kw: f"{value} {unit}",
            limits={"declared": Limits(n=Number(0, 10))},
        )
        with pytest.raises(ExpressionError, match="unbounded_loop cannot be called: it declares"):
            evaluate("unbounded_loop(10**9)", default_namespace())
        assert evaluate("declared(3)", default_namespace()) == 3
        with pytest.raises(ExpressionError, match="declared: n must be between 0 and 10"):
            evaluate("declared(11)", default_namespace())
    finally:
        subject.configure()


def test_a_declaration_that_misses_a_parameter_refuses_the_function():
    try:
        configure_subject(
            names={"two": lambda a, b: a + b},
            trusted_modules=(),
            format_number=lambda value, sig=3: str(value),
            format_quantity=lambda value, unit, **kw: f"{value} {unit}",
            limits={"two": Limits(a=Number())},
        )
        with pytest.raises(ExpressionError, match="no limit declared for b"):
            evaluate("two(1, 2)", default_namespace())
    finally:
        subject.configure()


# -- every function at the edges of what it declares -----------------------------------------

_ENTRIES = {
    "acc": "H100",
    "dt": "bf16",
    "kv_dt": "bf16",
    "compute_dt": "bf16",
    "from_dt": "bf16",
    "to_dt": "fp8",
    "m": "llama-2-7b",
    "ln": "nvlink4",
    "name": "H100",
    "key": "h100-datasheet",
    "params": "llama-2-7b",
    "fmt": "gptq-int4-g128",
    "from_fmt": "bf16",
    "to_fmt": "gptq-int4-g128",
    "price": "deepseek-v3",
    "measurement": "nccl-8xh200-32kib",
    "scale_up": "nvlink4",
    "scale_out": "ib-ndr",
}


def _edge(param: str, limit, high: bool):
    if isinstance(limit, Optional):
        limit = limit.inner
    if isinstance(limit, Entry):
        return _ENTRIES.get(param, "H100")
    if isinstance(limit, Number):
        return limit.high if high else limit.low
    if isinstance(limit, Text):
        return "x" * limit.max_length if high else ""
    if isinstance(limit, Flag):
        return high
    return None


def _edge_calls():
    for name in sorted(registered_functions()):
        declared = declared_limits(name)
        if declared is None or name in ("explain", "min", "max", "log", "sum", "len"):
            continue
        for high in (True, False):
            arguments = {p: _edge(p, limit, high) for p, limit in declared.params.items()}
            if any(value is None for value in arguments.values()):
                continue
            yield name, arguments


@pytest.mark.parametrize(("name", "arguments"), list(_edge_calls()), ids=lambda v: str(v)[:40])
def test_a_function_at_the_edges_of_its_limits_needs_little_memory(name, arguments):
    func = default_namespace()[name]
    tracemalloc.start()
    try:
        func(**arguments)
    except (ValueError, TypeError, KeyError, ArithmeticError):
        pass  # the function's own refusal, or its limits': either way, quickly and small
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 32 * 2**20, f"{name}({arguments}) peaked at {peak / 2**20:.0f} MB"
