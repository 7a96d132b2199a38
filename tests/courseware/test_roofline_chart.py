"""The roofline chart: its numbers come from the physics module; page, fragment, bad input."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from content.physics import (
    accelerator,
    arithmetic_intensity,
    attainable_flops,
    format_quantity,
    matmul_bytes,
    matmul_flops,
    ridge_point,
)
from courseware.charts import example_kernels, roofline, roofline_svg

URL = "/roofline/"


def test_url_name_resolves_to_the_chart():
    assert reverse("courseware:roofline_chart") == URL


def test_example_kernels_are_computed_with_the_physics_functions():
    kernels = {label: (i, f) for label, i, f in example_kernels("H100", "bf16")}
    intensity = arithmetic_intensity(
        matmul_flops(4096, 4096, 4096), matmul_bytes(4096, 4096, 4096, "bf16")
    )
    assert kernels["matmul n=4096"] == (intensity, attainable_flops("H100", "bf16", intensity))
    assert kernels["vector add, fp32"][0] == pytest.approx(1 / 12)
    assert kernels["vector add, fp16"][0] == pytest.approx(1 / 6)
    assert any(label.startswith("decode GEMV") for label in kernels)
    assert any(label.startswith("softmax") for label in kernels)


def test_points_left_of_the_ridge_are_memory_bound():
    chart = roofline("H100", "bf16")
    assert chart.ridge == ridge_point("H100", "bf16")
    for point in chart.points:
        assert point.memory_bound == (point.intensity < chart.ridge)
    assert {p.memory_bound for p in chart.points} == {True, False}


def test_svg_is_accessible_and_labels_the_ridge_point():
    svg = str(roofline_svg("H100", "bf16"))
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    ridge = format_quantity(ridge_point("H100", "bf16"), "FLOP/B")
    assert f"ridge point {ridge}" in svg
    assert "matmul n=16384" in svg


def test_an_extra_point_without_examples_is_drawn_alone():
    svg = str(roofline_svg("A100", "bf16", points=[("your kernel", 12.5, None)], examples=False))
    assert "your kernel" in svg and "matmul" not in svg
    assert svg.count('class="point ') == 1
    assert "highlighted" in svg


def test_an_extra_point_needs_a_positive_intensity():
    with pytest.raises(ValueError, match="intensity"):
        roofline_svg("H100", "bf16", points=[("bad", 0, None)])


@pytest.mark.django_db
def test_plain_get_returns_the_page_with_chart_and_table(client):
    response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html and "<svg" in html and "<table" in html
    assert "H100" in html and '<option value="h100-sxm" selected>' in html


@pytest.mark.django_db
def test_htmx_request_returns_only_the_chart_fragment(client):
    response = client.get(
        URL, {"accelerator": "a100-sxm-80gb", "dtype": "bf16"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert "<html" not in html and "<form" not in html
    assert "<svg" in html and "<table" in html
    ridge = format_quantity(ridge_point("A100", "bf16"), "FLOP/B")
    assert ridge in html and accelerator("A100").name in html


@pytest.mark.django_db
def test_the_table_repeats_the_chart_numbers(client):
    html = client.get(URL, {"accelerator": "h100-sxm", "dtype": "fp8"}).content.decode()
    table = re.search(r"<table class=\"roofline-table\">.*?</table>", html, re.S).group(0)
    peak = format_quantity(accelerator("H100").peak("fp8"), "FLOP/s")
    assert peak in table
    assert format_quantity(ridge_point("H100", "fp8"), "FLOP/B") in table


@pytest.mark.django_db
def test_a_format_the_part_cannot_compute_in_is_a_form_error(client):
    response = client.get(URL, {"accelerator": "v100-sxm2", "dtype": "bf16"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "no published bf16 rate" in html and "<svg" not in html


@pytest.mark.django_db
def test_an_unknown_accelerator_is_a_form_error(client):
    response = client.get(URL, {"accelerator": "z9000", "dtype": "bf16"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Unknown accelerator" in response.content.decode()
