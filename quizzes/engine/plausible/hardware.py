"""The hardware checks: links that the part really has, a form factor that matches the link between
two of its kind, a context within the model's window, a batch a server would run and a value in
the range the catalog states for its kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from content import physics
from content.physics.catalog.ranges import value_range

# Scale-out networks that ship with each scale-up generation in the vendors' reference systems
# (DGX-1: EDR; DGX A100: HDR 200 Gb/s; DGX H100 and DGX B200: NDR 400 Gb/s ConnectX-7, AWS's
# P6-B200 its 400 Gb/s EFA v4; MI300X platforms: 400 Gb/s NICs).  Ethernet of the same speed
# counts.  800 Gb/s ports (XDR, 800 GbE: ConnectX-8) come with B300 and GB300, which the catalog
# does not hold, so no catalogued part has one.
NETWORKS = {
    "nvlink2": ("ib-edr", "eth-100g"),
    "nvlink3": ("ib-edr", "ib-hdr", "eth-100g"),
    "nvlink4": ("ib-ndr", "eth-400g"),
    "nvlink5": ("ib-ndr", "efa-v4", "eth-400g"),
    "infinity-fabric": ("ib-ndr", "eth-400g"),
}
# Networks a PCIe card's server may carry: any NIC its host generation can feed at full rate.
_CARD_NETWORKS = {
    "pcie3": ("ib-edr", "eth-100g"),
    "pcie4": ("ib-edr", "ib-hdr", "eth-100g"),
    "pcie5": ("ib-edr", "ib-hdr", "ib-ndr", "eth-100g", "eth-400g"),
}


def has_link(args: Mapping[str, Any]) -> str | None:
    acc = physics.accelerator(args["accelerator"])
    ln = physics.link(args["link"])
    own = [key for key in (acc.link, acc.host_link) if key]
    if ln.key in own:
        return None
    if ln.kind == "network" and ln.key in NETWORKS.get(acc.link or "", ()):
        return None
    has = ", ".join(physics.link(key).name for key in own) or "no catalogued link"
    return f"the {acc.name} has no {ln.name} (it has {has})"


def form_factor(acc) -> str:
    """ "module" for a part on a baseboard with its own scale-up fabric (SXM, OAM, TPU boards),
    "card" for a PCIe card, "cpu" for a CPU socket."""
    acc = physics.accelerator(acc)
    if acc.kind == "cpu":
        return "cpu"
    return "module" if acc.link else "card"


def peer_link(args: Mapping[str, Any]) -> str | None:
    """The link that joins two of these accelerators (GPU to GPU, not host to GPU)."""
    acc = physics.accelerator(args["accelerator"])
    ln = physics.link(args["link"])
    if form_factor(acc) == "module":
        if ln.key == acc.link or ln.key in NETWORKS.get(acc.link, ()):
            return None
        own = physics.link(acc.link).name
        return (
            f"the {acc.name} is a module on a baseboard whose GPUs talk over {own}: no "
            f"{ln.name} joins two of them (a PCIe card such as the H100 PCIe would, or say "
            "the scenario is hypothetical and declare it `idealised`)"
        )
    if form_factor(acc) == "card":
        if ln.key == acc.host_link or ln.key in _CARD_NETWORKS.get(acc.host_link or "", ()):
            return None
        own = physics.link(acc.host_link).name if acc.host_link else "no catalogued link"
        return f"the {acc.name} is a PCIe card: two of them talk over {own}, not {ln.name}"
    return f"the {acc.name} is a CPU socket, not a part joined to its peers by {ln.name}"


def within_context(args: Mapping[str, Any]) -> str | None:
    m = physics.model(args["model"])
    context = args["context"]
    if context > m.context_length:
        return f"a context of {context:g} tokens exceeds {m.name}'s window of {m.context_length}"
    window = m.sliding_window
    if window and context > window and not args["cache_capped"]:
        return (
            f"{m.name} attends over a sliding window of {window} tokens and keeps a rolling KV "
            f"cache of that many: a context of {context:g} tokens sizes a cache it never holds "
            "(cap the context at the window, or cap the cache and say `cache_capped: True`)"
        )
    return None


def batch_at_most(args: Mapping[str, Any]) -> str | None:
    if args["batch"] <= args["max"]:
        return None
    return f"a batch of {args['batch']:g} is more than {args['max']:g}"


def in_range(args: Mapping[str, Any]) -> str | None:
    spec = value_range(str(args["kind"]))
    context = {name: args[name] for name in (*spec.needs, *spec.optional) if args[name] is not None}
    missing = [name for name in spec.needs if name not in context]
    if missing:
        return f"the range of {spec.kind!r} needs the argument {', '.join(missing)}"
    low, high = spec.bounds(context)
    value = args["value"]
    if low <= value <= high:
        return None
    unit = f" {spec.unit}" if spec.unit else ""
    return (
        f"{value:.4g}{unit} is outside the range of {spec.kind} [{low:.4g}, {high:.4g}]{unit}: "
        f"{spec.meaning} (source: {spec.source})"
    )


def idealised(args: Mapping[str, Any]) -> str | None:
    """A declared idealisation always holds: it says which check the template leaves out and
    why (its prompt must say so too), so the coverage rules do not ask for that check."""
    return None


__all__ = [
    "NETWORKS",
    "batch_at_most",
    "form_factor",
    "has_link",
    "idealised",
    "in_range",
    "peer_link",
    "within_context",
]
