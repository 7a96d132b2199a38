from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = "Quizzes"

    def ready(self):
        # The course home lists a student's open attempts and due quizzes.
        from courseware import home_panels
        from quizzes.views.landing import open_work

        home_panels.register(open_work)
        # The grading pool is a pure executor: its size, timeout and memory limit come from
        # settings.GRADING_POOL (each one left out is read from its environment variable).
        from django.conf import settings

        from quizzes import stamps
        from quizzes.grading import pool
        from quizzes.warmup import on_ready

        # Every write to a row a memoised page or kept statistic shows raises its stamp.
        stamps.watch()
        pool.configure(**getattr(settings, "GRADING_POOL", {}))
        # /readyz says whether this process's pool can grade (warm, or inline).
        from health import checks

        checks.register("grading_pool", pool.pool_status)
        # Warm the formula-grading pool in a serving process (see quizzes.warmup).
        on_ready()
