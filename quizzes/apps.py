from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = "Quizzes"

    def ready(self):
        # The course home lists a student's open attempts and due quizzes.
        from courseware import home_panels
        from quizzes.views.landing import open_work

        home_panels.register(open_work)
        # Warm the formula-grading pool in a serving process (see quizzes.warmup).
        from quizzes.warmup import on_ready

        on_ready()
