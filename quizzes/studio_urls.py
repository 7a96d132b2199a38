"""Authoring studio pages, mounted at /studio/ (namespace "studio")."""

from django.urls import path  # noqa: F401

app_name = "studio"

urlpatterns: list = []
