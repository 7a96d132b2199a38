"""The site's admin: Django's, except that a signed-in user who is not staff is refused.

Installed through `config.apps.SiteAdminConfig.default_site`, so `admin.site` (and every
`@admin.register`) is this site; nothing is patched at import time.
"""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied


class SiteAdmin(admin.AdminSite):
    site_header = "The Hardware Reality: administration"

    def login(self, request, extra_context=None):
        # A signed-in student asking for /admin/ is refused outright rather than shown a login
        # form (which would invite them to try staff passwords).
        if request.user.is_authenticated and not request.user.is_staff:
            raise PermissionDenied("The administration pages are for site staff.")
        return super().login(request, extra_context)
