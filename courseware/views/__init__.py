"""Courseware views: the course home, the book's pages, the public tools and the error pages.

Each module holds one area; this package re-exports the views that urls.py names.
"""

from .account import time_zone
from .book import chapter_detail, mark_read
from .errors import bad_request, csrf_failure, page_not_found, permission_denied, server_error
from .home import home
from .site import favicon, logout_page, password_change
from .tools import calculator, roofline_chart

__all__ = [
    "bad_request",
    "calculator",
    "chapter_detail",
    "csrf_failure",
    "favicon",
    "home",
    "logout_page",
    "mark_read",
    "page_not_found",
    "password_change",
    "permission_denied",
    "roofline_chart",
    "server_error",
    "time_zone",
]
