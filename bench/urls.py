"""The site's URLs plus the floor: minimal views registered only inside the bench process.

The floor is what Django itself costs for a request through the same middleware with the same
logged-in session: `floor` returns a few bytes, `floor_page` renders the site's base layout
with no content. Each page's time is reported as a multiple of the floor.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from config.urls import handler400, handler403, handler404, handler500, urlpatterns  # noqa: F401


@require_GET
@login_required
def floor(request):
    return HttpResponse("ok", content_type="text/plain")


@require_GET
@login_required
def floor_page(request):
    return render(request, "base.html", {})


urlpatterns = [
    path("bench-floor/", floor, name="bench_floor"),
    path("bench-floor-page/", floor_page, name="bench_floor_page"),
    *urlpatterns,
]
