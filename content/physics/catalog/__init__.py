"""The catalogs of the physics module: sources, accelerators, formats, links, models, memory
hierarchy, prices and published measurements.  Each entry cites its sources; look-ups fold case
and name close matches."""

from content.physics.catalog.accelerators import Accelerator, accelerator, accelerators
from content.physics.catalog.api_prices import ApiPrice, api_price, api_prices
from content.physics.catalog.collectives import (
    CollectiveMeasurement,
    collective_measurement,
    collective_measurements,
)
from content.physics.catalog.deployments import Deployment, deployment, deployments
from content.physics.catalog.dtypes import DType, dtype, dtypes
from content.physics.catalog.hierarchy import MeasuredLevel, MemoryLevel, memory_hierarchy
from content.physics.catalog.links import Link, link, links
from content.physics.catalog.measured import Measurement, measurement, measurements
from content.physics.catalog.models import Model, model, models
from content.physics.catalog.prices import PriceSnapshot, price, prices
from content.physics.catalog.published import PublishedFigure, published, published_figures
from content.physics.catalog.sources import Source, source, sources
from content.physics.catalog.weight_formats import WeightFormat, weight_format, weight_formats

__all__ = [
    "Accelerator",
    "ApiPrice",
    "CollectiveMeasurement",
    "DType",
    "Deployment",
    "Link",
    "MeasuredLevel",
    "Measurement",
    "MemoryLevel",
    "Model",
    "PriceSnapshot",
    "PublishedFigure",
    "Source",
    "WeightFormat",
    "accelerator",
    "accelerators",
    "api_price",
    "api_prices",
    "collective_measurement",
    "collective_measurements",
    "deployment",
    "deployments",
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
    "published",
    "published_figures",
    "source",
    "sources",
    "weight_format",
    "weight_formats",
]
