from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = "Quizzes"

    def ready(self):
        # Warm the formula-grading pool in a serving process (see quizzes.warmup).
        from quizzes.warmup import on_ready

        on_ready()
