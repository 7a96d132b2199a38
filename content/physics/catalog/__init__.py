"""The catalogs of the physics module: sources, accelerators, formats, links, models, memory
hierarchy, prices and published measurements.  Each entry cites its sources; look-ups fold case
and name close matches."""

from content.physics.catalog.accelerators import Accelerator, accelerator, accelerators
from content.physics.catalog.dtypes import DType, dtype, dtypes
from content.physics.catalog.hierarchy import MeasuredLevel, MemoryLevel, memory_hierarchy
from content.physics.catalog.links import Link, link, links
from content.physics.catalog.measured import Measurement, measurement, measurements
from content.physics.catalog.models import Model, model, models
from content.physics.catalog.prices import PriceSnapshot, price, prices
from content.physics.catalog.sources import Source, source, sources

__all__ = [
    "Accelerator",
    "DType",
    "Link",
    "MeasuredLevel",
    "Measurement",
    "MemoryLevel",
    "Model",
    "PriceSnapshot",
    "Source",
    "accelerator",
    "accelerators",
    "dtype",
    "dtypes",
    "link",
    "links",
    "measurement",
    "measurements",
    "memory_hierarchy",
    "model",
    "models",
    "price",
    "prices",
    "source",
    "sources",
]
