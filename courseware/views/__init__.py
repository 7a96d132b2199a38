"""Courseware views: the course home, the book's pages and the error pages.

Each module holds one area; this package re-exports the views that urls.py names.
"""

from .book import chapter_detail
from .errors import bad_request, page_not_found, permission_denied, server_error
from .home import home

__all__ = [
    "bad_request",
    "chapter_detail",
    "home",
    "page_not_found",
    "permission_denied",
    "server_error",
]
