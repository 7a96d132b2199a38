"""The public tools beside the book: the roofline chart and the napkin calculator.

Each is a GET form: a plain submit reloads the page, and htmx swaps only the result region.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ..calculator import catalog_price, napkin
from ..charts import DEFAULT_ACCELERATOR, DEFAULT_DTYPE, roofline_figure_html
from ..forms import CalculatorForm, RooflineForm


def _render(request: HttpRequest, template: str, partial: str, context: dict) -> HttpResponse:
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context)


@require_GET
def roofline_chart(request: HttpRequest) -> HttpResponse:
    form = RooflineForm(
        {
            "accelerator": request.GET.get("accelerator", DEFAULT_ACCELERATOR),
            "dtype": request.GET.get("dtype", DEFAULT_DTYPE),
        }
    )
    figure = None
    if form.is_valid():
        figure = roofline_figure_html(form.cleaned_data["accelerator"], form.cleaned_data["dtype"])
    return _render(
        request, "courseware/roofline_chart.html", "chart", {"form": form, "figure": figure}
    )


@require_GET
def calculator(request: HttpRequest) -> HttpResponse:
    form = CalculatorForm.from_query(request.GET)
    result = None
    if form.is_valid():
        data = form.cleaned_data
        result = napkin(
            model_name=data["model"],
            weight_dtype=data["weight_dtype"],
            kv_dtype=data["kv_dtype"],
            accelerator_name=data["accelerator"],
            gpus=data["gpus"],
            batch=data["batch"],
            context=data["context"],
            prompt=data["prompt"],
            price_per_hour=data["price"],
            level=data["level"],
        )
    catalog = None
    accelerator_key = form.data.get("accelerator")
    if accelerator_key in dict(form.fields["accelerator"].choices):
        try:
            catalog = catalog_price(accelerator_key)
        except KeyError:
            catalog = None
    context = {"form": form, "result": result, "catalog_price": catalog}
    return _render(request, "courseware/calculator.html", "results", context)
