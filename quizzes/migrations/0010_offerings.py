"""Quizzes belong to an offering, and so do regrade runs and kept item statistics.

Each course has exactly one offering when this runs (courseware 0002 made them), so every quiz,
regrade run and statistics row moves to its course's offering; attempts, variants, responses,
saved answers, extensions and overrides hang off the quizzes and attempts and are not touched.
Going back works while each course still has one offering.
"""

import django.db.models.deletion
from django.db import migrations, models

from courseware.migrations._support import settle_deferred_checks


def offering_of_course(apps) -> dict:
    """{course id: its offering's id}; a course without one (made after courseware 0002, which
    gave each course its offering) gets one now, as that migration would have."""
    Course = apps.get_model("courseware", "Course")
    Offering = apps.get_model("courseware", "Offering")
    found = dict(Offering.objects.order_by("-pk").values_list("course_id", "pk"))
    for course in Course.objects.exclude(pk__in=list(found)).order_by("pk"):
        slug, n = course.slug[:56], 2
        while Offering.objects.filter(slug=slug).exists():
            slug, n = f"{course.slug[:52]}-{n}", n + 1
        found[course.pk] = Offering.objects.create(
            course_id=course.pk, slug=slug, title=course.title
        ).pk
    return found


def to_offerings(apps, schema_editor):
    Quiz = apps.get_model("quizzes", "Quiz")
    RegradeRun = apps.get_model("quizzes", "RegradeRun")
    ItemStatistics = apps.get_model("quizzes", "ItemStatistics")
    offering = offering_of_course(apps)
    for course_id, offering_id in offering.items():
        Quiz.objects.filter(course_id=course_id).update(offering_id=offering_id)
        RegradeRun.objects.filter(template__course_id=course_id).update(offering_id=offering_id)
        ItemStatistics.objects.filter(template__course_id=course_id).update(
            offering_id=offering_id
        )
    settle_deferred_checks(schema_editor)


def to_courses(apps, schema_editor):
    Quiz = apps.get_model("quizzes", "Quiz")
    Offering = apps.get_model("courseware", "Offering")
    for offering_id, course_id in Offering.objects.values_list("pk", "course_id"):
        Quiz.objects.filter(offering_id=offering_id).update(course_id=course_id)
    settle_deferred_checks(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("courseware", "0002_offerings"),
        ("quizzes", "0009_attempt_page_stamp"),
    ]

    operations = [
        migrations.AddField(
            model_name="quiz",
            name="offering",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="quizzes",
                to="courseware.offering",
            ),
        ),
        migrations.AddField(
            model_name="quiz",
            name="copied_from",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="quizzes.quiz",
            ),
        ),
        migrations.AddField(
            model_name="regraderun",
            name="offering",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="regrades",
                to="courseware.offering",
            ),
        ),
        migrations.AddField(
            model_name="itemstatistics",
            name="offering",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="courseware.offering",
            ),
        ),
        migrations.AlterField(
            model_name="quiz",
            name="course",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="quizzes",
                to="courseware.course",
            ),
        ),
        migrations.RunPython(to_offerings, to_courses),
        migrations.RemoveConstraint(model_name="quiz", name="unique_quiz_slug"),
        migrations.RemoveConstraint(
            model_name="itemstatistics", name="one_statistics_per_template_and_scope"
        ),
        migrations.AlterModelOptions(
            name="quiz",
            options={"ordering": ["offering", "position", "slug"], "verbose_name_plural": "quizzes"},
        ),
        migrations.RemoveField(model_name="quiz", name="course"),
        migrations.AlterField(
            model_name="quiz",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="quizzes",
                to="courseware.offering",
            ),
        ),
        migrations.AlterField(
            model_name="regraderun",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="regrades",
                to="courseware.offering",
            ),
        ),
        migrations.AlterField(
            model_name="itemstatistics",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="courseware.offering",
            ),
        ),
        migrations.AddConstraint(
            model_name="quiz",
            constraint=models.UniqueConstraint(
                fields=("offering", "slug"), name="unique_quiz_slug"
            ),
        ),
        migrations.AddConstraint(
            model_name="itemstatistics",
            constraint=models.UniqueConstraint(
                fields=("template", "offering", "quiz_key"),
                name="one_statistics_per_template_and_scope",
            ),
        ),
    ]
