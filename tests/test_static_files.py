"""Static files are fingerprinted, cached for a long time and served compressed (whitenoise)."""

from __future__ import annotations

import gzip
import re

import pytest
from django.core.management import call_command
from django.test import Client

from config import settings as site_settings

MANIFEST = "whitenoise.storage.CompressedManifestStaticFilesStorage"
YEAR = 365 * 24 * 3600


def test_the_site_stores_static_files_fingerprinted_and_compressed():
    assert site_settings.STORAGES["staticfiles"]["BACKEND"] == MANIFEST


@pytest.fixture
def collected(settings, tmp_path):
    """The site's own static storage, collected into a fresh STATIC_ROOT, DEBUG off."""
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST}}
    call_command("collectstatic", interactive=False, verbosity=0)
    from django.contrib.staticfiles.storage import staticfiles_storage

    return staticfiles_storage


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_a_fingerprinted_file_has_a_far_future_max_age_and_a_gzip_variant(collected):
    url = collected.url("css/site.css")
    assert re.search(r"/css/site\.[0-9a-f]{12}\.css$", url), url
    client = Client()  # a new handler, so whitenoise scans the STATIC_ROOT just collected
    zipped = client.get(url, secure=True, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert zipped.status_code == 200
    assert zipped["Content-Encoding"] == "gzip"
    max_age = int(re.search(r"max-age=(\d+)", zipped["Cache-Control"]).group(1))
    assert max_age >= YEAR
    assert "immutable" in zipped["Cache-Control"]
    plain = client.get(url, secure=True)
    assert "Content-Encoding" not in plain
    compressed, original = body(zipped), body(plain)
    assert gzip.decompress(compressed) == original
    assert 0 < len(compressed) < len(original)


def test_an_unfingerprinted_name_is_not_cached_for_long(collected):
    response = Client().get("/static/css/site.css", secure=True, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    max_age = int(re.search(r"max-age=(\d+)", response["Cache-Control"]).group(1))
    assert max_age < 3600  # a name that does not change with its content must not be cached
