"""factory-boy factories for every model the tests build, in one place."""

from __future__ import annotations

import factory
from django.conf import settings
from django.contrib.auth import get_user_model

from courseware.models import Chapter, Course, Enrollment, Part, Role

PASSWORD = "a-test-password-42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    password = factory.django.Password(PASSWORD)


class CourseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Course
        django_get_or_create = ("slug",)

    slug = factory.LazyFunction(lambda: settings.COURSE_SLUG)
    title = "AI Efficiency, Part 1: The Hardware Reality"


class PartFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Part
        django_get_or_create = ("course", "number")

    course = factory.SubFactory(CourseFactory)
    number = 1
    title = "The Hardware Reality"


class ChapterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Chapter

    part = factory.SubFactory(PartFactory)
    slug = factory.Sequence(lambda n: f"chapter-{n}")
    title = factory.Sequence(lambda n: f"Chapter {n}")
    order = factory.Sequence(lambda n: n)
    source = "# A chapter\n\nSome text."


class EnrollmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Enrollment

    user = factory.SubFactory(UserFactory)
    course = factory.SubFactory(CourseFactory)
    role = Role.STUDENT
