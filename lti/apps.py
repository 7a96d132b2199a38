from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "lti"
    verbose_name = "LTI 1.3 (LMS integration)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Grade passback listens for attempt scores being written (lti/passback.py).
        from lti import signals  # noqa: F401
