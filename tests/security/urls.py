"""The site's URLs plus one view that fails, to see the 500 page and its headers."""

from django.urls import path

from config.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def boom(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("boom-for-tests/", boom), *urlpatterns]
