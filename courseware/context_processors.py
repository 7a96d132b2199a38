"""Template context every page needs: the offering of the page (if it has one), the reader's
role in it, their offerings for the header's switcher, and the site's book.

On an offering's page the view's role check has read all of this already (`courseware.roles`),
so it costs no query; elsewhere the user's enrolments are one query, read only by a page that
draws the header, and the site roles only if the page asks (the header shows the studio and site
links only outside an offering).

Error pages use this too, and they are rendered for requests that never reached the
authentication middleware (a refused Host header) or while the database is down; then the page
simply shows no offering navigation.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError
from django.utils.functional import SimpleLazyObject

from .models import Course
from .roles import enrollments_of, site_course, site_roles

log = logging.getLogger(__name__)

EMPTY = {
    "reset_by_email": False,
    "course": None,
    "offering": None,
    "offering_role": None,
    "my_enrollments": [],
    "site_roles": frozenset(),
}


def course(request):
    user = getattr(request, "user", None)
    if user is None:
        return EMPTY
    offering = getattr(request, "offering", None)
    try:
        course = getattr(request, "course", None)
        if course is None:
            try:
                course = site_course()
            except Course.DoesNotExist:
                course = None
    except DatabaseError:
        log.warning("offering context unavailable: the database did not answer", exc_info=True)
        return EMPTY
    return {
        # Whether a forgotten password can be reset by e-mail (the login page links to it).
        "reset_by_email": settings.PASSWORD_RESET_BY_EMAIL,
        "course": course,
        "offering": offering,
        "offering_role": getattr(request, "offering_role", None),
        # Read only by a page that draws the header: an htmx fragment never asks.
        "my_enrollments": SimpleLazyObject(lambda: enrollments_of(user)),
        "site_roles": SimpleLazyObject(lambda: site_roles(user)),
    }
