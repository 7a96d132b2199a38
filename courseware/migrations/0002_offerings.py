"""Many offerings of one course: today's single course becomes one offering.

Each course gets one offering (same slug and title); the site's course (settings.COURSE_SLUG,
else the oldest) is the default offering and follows the quiz files. Every enrolment moves to
its course's offering with its role; an author enrolment becomes the site-wide author role
(authoring is no longer a role in an offering). The quizzes' and LMS links' rows follow in the
quizzes and lti migrations that depend on this one.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from courseware.migrations._support import settle_deferred_checks

import courseware.models


def to_offerings(apps, schema_editor):
    Course = apps.get_model("courseware", "Course")
    Offering = apps.get_model("courseware", "Offering")
    Enrollment = apps.get_model("courseware", "Enrollment")
    SiteRole = apps.get_model("courseware", "SiteRole")
    courses = list(Course.objects.order_by("created_at", "pk"))
    site = next((c for c in courses if c.slug == settings.COURSE_SLUG), None)
    site = site or (courses[0] if courses else None)
    for course in courses:
        Offering.objects.create(
            course=course,
            slug=course.slug[:60],
            title=course.title,
            is_default=course.pk == site.pk,
            follows_files=course.pk == site.pk,
        )
    by_course = {o.course_id: o.pk for o in Offering.objects.all()}
    for enrollment in Enrollment.objects.all():
        if enrollment.role == "author":
            SiteRole.objects.get_or_create(user_id=enrollment.user_id, role="author")
            enrollment.delete()
            continue
        enrollment.offering_id = by_course[enrollment.course_id]
        enrollment.save(update_fields=["offering"])
    settle_deferred_checks(schema_editor)


def to_courses(apps, schema_editor):
    """Back to one course: each enrolment to its offering's course (the first one a user has
    there wins), and site authors to an author enrolment in the site's course."""
    Course = apps.get_model("courseware", "Course")
    Enrollment = apps.get_model("courseware", "Enrollment")
    SiteRole = apps.get_model("courseware", "SiteRole")
    seen = set()
    for enrollment in Enrollment.objects.select_related("offering").order_by("pk"):
        key = (enrollment.user_id, enrollment.offering.course_id)
        if key in seen:
            enrollment.delete()
            continue
        seen.add(key)
        enrollment.course_id = enrollment.offering.course_id
        enrollment.role = "instructor" if enrollment.role == "ta" else enrollment.role
        enrollment.save(update_fields=["course", "role"])
    site = Course.objects.filter(slug=settings.COURSE_SLUG).first() or Course.objects.first()
    if site is not None:
        for user_id in SiteRole.objects.filter(role="author").values_list("user_id", flat=True):
            if (user_id, site.pk) not in seen:
                Enrollment.objects.create(user_id=user_id, course=site, role="author")
    settle_deferred_checks(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("courseware", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Offering",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("slug", models.SlugField(max_length=60, unique=True)),
                ("title", models.CharField(max_length=200)),
                (
                    "term",
                    models.CharField(blank=True, help_text="Like Spring 2027.", max_length=100),
                ),
                ("section", models.CharField(blank=True, help_text="Like 2, or B.", max_length=50)),
                (
                    "time_zone",
                    models.CharField(
                        default="UTC",
                        help_text="The offering's dates are set and shown in this zone.",
                        max_length=64,
                        validators=[courseware.models.validate_time_zone],
                    ),
                ),
                (
                    "is_archived",
                    models.BooleanField(
                        default=False,
                        help_text="A past offering: listed apart, and students start no attempts.",
                    ),
                ),
                ("is_default", models.BooleanField(default=False)),
                ("follows_files", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "copied_from",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="copies",
                        to="courseware.offering",
                    ),
                ),
                (
                    "course",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="offerings",
                        to="courseware.course",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["is_archived", "-created_at", "title"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("is_default", True)),
                        fields=("is_default",),
                        name="one_default_offering",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="SiteRole",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[("author", "Author"), ("administrator", "Site administrator")],
                        max_length=20,
                    ),
                ),
                ("granted_at", models.DateTimeField(auto_now_add=True)),
                (
                    "granted_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="site_roles",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["role", "user__username"],
                "constraints": [
                    models.UniqueConstraint(fields=("user", "role"), name="one_site_role_each")
                ],
            },
        ),
        migrations.AddField(
            model_name="enrollment",
            name="offering",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="enrollments",
                to="courseware.offering",
            ),
        ),
        migrations.AddField(
            model_name="enrollment",
            name="source",
            field=models.CharField(
                choices=[("site", "Made on this site"), ("lms", "Made by an LMS")],
                default="site",
                max_length=10,
            ),
        ),
        # The old role list (with author) while the rows move; the new one after.
        migrations.AlterField(
            model_name="enrollment",
            name="role",
            field=models.CharField(
                choices=[
                    ("student", "Student"),
                    ("ta", "Teaching assistant"),
                    ("instructor", "Instructor"),
                    ("author", "Author"),
                ],
                default="student",
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="enrollment",
            name="course",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="enrollments",
                to="courseware.course",
            ),
        ),
        migrations.RunPython(to_offerings, to_courses),
        migrations.RemoveConstraint(model_name="enrollment", name="one_enrollment_per_course"),
        migrations.AlterModelOptions(
            name="enrollment", options={"ordering": ["offering", "role", "user__username"]}
        ),
        migrations.RemoveField(model_name="enrollment", name="course"),
        migrations.AlterField(
            model_name="enrollment",
            name="offering",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="enrollments",
                to="courseware.offering",
            ),
        ),
        migrations.AlterField(
            model_name="enrollment",
            name="role",
            field=models.CharField(
                choices=[
                    ("student", "Student"),
                    ("ta", "Teaching assistant"),
                    ("instructor", "Instructor"),
                ],
                default="student",
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="enrollment",
            constraint=models.UniqueConstraint(
                fields=("user", "offering"), name="one_enrollment_per_offering"
            ),
        ),
    ]
