"""The constraints of 0002's namespaces, in their own migration so that on PostgreSQL no
table is altered in the transaction that updated its rows."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0002_response_source"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="response",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source", "check")),
                fields=("variant", "part_id", "idempotency_key"),
                name="one_response_per_key",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source", "exam")),
                fields=("variant", "part_id"),
                name="one_exam_grade_per_part",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("source", "check"), models.Q(("idempotency_key", ""), _negated=True)),
                    models.Q(("source", "exam"), ("idempotency_key", "")),
                    _connector="OR",
                ),
                name="key_only_on_checks",
            ),
        ),
    ]
