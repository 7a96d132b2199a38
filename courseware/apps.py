from django.apps import AppConfig


class CoursewareConfig(AppConfig):
    name = "courseware"
    verbose_name = "Courseware"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from .middleware import zone_at_login

        # The account's time zone goes into the session at login (one read then), so no
        # request after it reads a row for it.
        user_logged_in.connect(zone_at_login, dispatch_uid="courseware-zone-at-login")
