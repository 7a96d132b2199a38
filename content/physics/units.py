"""The one unit registry of the project, shared by the physics module and the grader.

It is built from scratch rather than from pint's default definitions, because the defaults
carry meanings that collide with computing units (``b`` is a barn there, not a bit) and
thousands of units no student of this book needs.  Information is a real dimension, so a
frequency (1/s) is never a data rate (bit/s), and FLOP and tokens are dimensions of their own.

Conventions: symbols are case-sensitive; SI prefixes are decimal (``k M G T P E``), IEC prefixes
binary (``Ki Mi Gi Ti Pi Ei``).  ``K`` is not a prefix, so ``KB`` does not parse: the grader
refuses it as ambiguous.  ``FLOPS`` (capital S) is a rate, FLOP per second, as datasheets use
it ("TFLOPS"); ``FLOPs``, ``flop`` and ``flops`` are counts.  ``Bps``/``bps`` (``TBps``,
``Gbps``) are byte and bit rates.
"""

from __future__ import annotations

from functools import lru_cache

import pint

DEFINITIONS = """
# decimal prefixes
quecto- = 1e-30 = q-
femto- = 1e-15 = f-
pico- = 1e-12 = p-
nano- = 1e-9 = n-
micro- = 1e-6 = µ- = μ- = u-
milli- = 1e-3 = m-
kilo- = 1e3 = k-
mega- = 1e6 = M-
giga- = 1e9 = G-
tera- = 1e12 = T-
peta- = 1e15 = P-
exa- = 1e18 = E-
# binary prefixes
kibi- = 2**10 = Ki-
mebi- = 2**20 = Mi-
gibi- = 2**30 = Gi-
tebi- = 2**40 = Ti-
pebi- = 2**50 = Pi-
exbi- = 2**60 = Ei-

# base dimensions
second = [time] = s = sec
bit = [information] = b
FLOP = [compute] = flop = FLOPs = flops_count
token = [tokens] = tok
dollar = [currency] = USD
joule = [energy] = J

# derived units
minute = 60 * second = min
hour = 60 * minute = h = hr
day = 24 * hour = d
byte = 8 * bit = B = octet
watt = joule / second = W
hertz = 1 / second = Hz
cent = 0.01 * dollar = ¢
# rates written as one symbol; "FLOPS" in capitals is FLOP per second, as on datasheets
# ("TFLOPS"), while "FLOPs" with a small s is a plural count of FLOP
FLOPS = FLOP / second
byte_per_second = byte / second = Bps
bit_per_second = bit / second = bps
watt_hour = watt * hour = Wh
"""


@lru_cache(maxsize=1)
def get_registry() -> pint.UnitRegistry:
    """Return the shared registry (built once per process)."""
    registry = pint.UnitRegistry(
        None,
        case_sensitive=True,
        autoconvert_offset_to_baseunit=False,
        non_int_type=float,
    )
    registry.load_definitions(DEFINITIONS.splitlines())
    return registry


ureg = get_registry()
Quantity = ureg.Quantity
