"""LMS contexts map to offerings, line items to placements, and LMS-made enrolments say so.

Each context linked to a course is linked to that course's offering (one per course when this
runs). Line items keep their rows, URLs and grade syncs; they get no resource link yet, and the
first launch of a link to their quiz adopts them. The enrolments of users an LMS created are
marked as the LMS's, so later launches and roster syncs of that LMS may change their role; an
enrolment made any other way never changes on a launch.
"""

import importlib

import django.db.models.deletion
from django.db import migrations, models

from courseware.migrations._support import settle_deferred_checks

# One rule for the course -> offering map, shared with the quizzes migration (a module whose
# name starts with a digit is imported by name).
offering_of_course = importlib.import_module(
    "quizzes.migrations.0010_offerings"
).offering_of_course


def to_offerings(apps, schema_editor):
    ContextOffering = apps.get_model("lti", "ContextOffering")
    Enrollment = apps.get_model("courseware", "Enrollment")
    LtiUser = apps.get_model("lti_tool", "LtiUser")
    by_course = offering_of_course(apps)
    for link in ContextOffering.objects.all():
        link.offering_id = by_course[link.course_id]
        link.save(update_fields=["offering"])
    lms_users = LtiUser.objects.exclude(auth_user=None).values("auth_user_id")
    Enrollment.objects.filter(user_id__in=lms_users).update(source="lms")
    settle_deferred_checks(schema_editor)


def to_courses(apps, schema_editor):
    ContextOffering = apps.get_model("lti", "ContextOffering")
    for link in ContextOffering.objects.select_related("offering"):
        link.course_id = link.offering.course_id
        link.save(update_fields=["course"])
    settle_deferred_checks(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("courseware", "0002_offerings"),
        ("lti", "0002_launch_state_key_sets_service_hosts"),
        ("lti_tool", "0008_ltideployment_pns_url_and_more"),
        ("quizzes", "0010_offerings"),
    ]

    operations = [
        migrations.RenameModel("ContextCourse", "ContextOffering"),
        migrations.AddField(
            model_name="contextoffering",
            name="offering",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="lti_contexts",
                to="courseware.offering",
            ),
        ),
        migrations.AlterField(
            model_name="contextoffering",
            name="course",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="courseware.course",
            ),
        ),
        migrations.AlterField(
            model_name="contextoffering",
            name="context",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="offering_link",
                to="lti_tool.lticontext",
            ),
        ),
        migrations.RunPython(to_offerings, to_courses),
        migrations.RemoveField(model_name="contextoffering", name="course"),
        migrations.AlterField(
            model_name="contextoffering",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="lti_contexts",
                to="courseware.offering",
            ),
        ),
        migrations.CreateModel(
            name="PlatformTemplate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "offering",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="courseware.offering",
                    ),
                ),
                (
                    "registration",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="offering_template",
                        to="lti_tool.ltiregistration",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="quizlineitem",
            name="resource_link",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="quiz_line_items",
                to="lti_tool.ltiresourcelink",
            ),
        ),
        migrations.RemoveConstraint(model_name="quizlineitem", name="one_line_item_per_quiz"),
        migrations.AddConstraint(
            model_name="quizlineitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("resource_link__isnull", False)),
                fields=("resource_link", "quiz"),
                name="one_line_item_per_placement",
            ),
        ),
        migrations.AddConstraint(
            model_name="quizlineitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("resource_link__isnull", True)),
                fields=("context", "quiz"),
                name="one_unplaced_line_item_per_quiz",
            ),
        ),
    ]
