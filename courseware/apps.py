from django.apps import AppConfig


class CoursewareConfig(AppConfig):
    name = "courseware"
    verbose_name = "Courseware"
