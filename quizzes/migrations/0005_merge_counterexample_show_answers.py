# Joins the grading branch's counterexample column and the integrity branch's release policy,
# which were made side by side; it changes nothing in the schema.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0002_response_counterexample"),
        ("quizzes", "0004_quiz_show_answers"),
    ]

    operations = []
