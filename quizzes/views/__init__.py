"""The quizzes app's pages: `student` (taking quizzes, results, My progress).

The instructor pages live in `quizzes.views.instructor`, imported by their own URL module.
"""
