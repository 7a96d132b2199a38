"""Instructor pages, mounted at /instructor/ (namespace "instructor")."""

from django.urls import path  # noqa: F401

app_name = "instructor"

urlpatterns: list = []
