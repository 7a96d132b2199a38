"""Responses say who made them; an exam's server-made grades leave the client's key namespace.

Until now an exam grade was stored under the key `exam-<variant>-<part>`, unique across every
response, and a homework Check could claim that key first. From here a Check's key is unique
only within its own variant and part, and an exam grade has no key at all (`source="exam"`).

Existing rows: a response whose key is exactly `exam-<its own variant>-<its own part>` on an
exam quiz was made by the server at submission; it becomes `source="exam"` with no key. Every
other row is a Check and keeps its key; a Check that once claimed another student's exam key
stays where it is, on its own variant, where it now names nothing but itself.
"""

from django.db import migrations, models


def mark_exam_grades(apps, schema_editor):
    Response = apps.get_model("quizzes", "Response")
    rows = Response.objects.filter(
        idempotency_key__startswith="exam-", variant__attempt__quiz__mode="exam"
    ).values_list("pk", "idempotency_key", "variant_id", "part_id")
    exam = [pk for pk, key, variant, part in rows if key == f"exam-{variant}-{part}"]
    for start in range(0, len(exam), 500):
        Response.objects.filter(pk__in=exam[start : start + 500]).update(
            source="exam", idempotency_key=""
        )


def restore_exam_keys(apps, schema_editor):
    Response = apps.get_model("quizzes", "Response")
    for pk, variant, part in Response.objects.filter(source="exam").values_list(
        "pk", "variant_id", "part_id"
    ):
        Response.objects.filter(pk=pk).update(idempotency_key=f"exam-{variant}-{part}")


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="response",
            name="source",
            field=models.CharField(
                choices=[
                    ("check", "Checked by the student"),
                    ("exam", "Graded when the exam was submitted"),
                ],
                default="check",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="response",
            name="idempotency_key",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(mark_exam_grades, restore_exam_keys),
    ]
