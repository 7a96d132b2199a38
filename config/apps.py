"""The admin app with the site's own `AdminSite` (see `config.admin`)."""

from django.contrib.admin.apps import AdminConfig


class SiteAdminConfig(AdminConfig):
    default_site = "config.admin.SiteAdmin"
