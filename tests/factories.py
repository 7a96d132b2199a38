"""factory-boy factories for every model the tests build, in one place."""

from __future__ import annotations

import factory
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from courseware.models import Chapter, Course, Enrollment, Offering, Part, Role, SiteRole

PASSWORD = "a-test-password-42"
_HASHED: dict[tuple, str] = {}


def hashed_once(raw: str | None) -> str:
    """`make_password`, paid once per password and hasher list: a factory user used to cost a
    full hash with the site's hasher (PBKDF2 takes about 0.5 s of CPU), most of a view test's
    time. The site's own hashers stay in force, so logins check real hashes."""
    key = (raw, tuple(settings.PASSWORD_HASHERS))
    if raw is None or key not in _HASHED:
        hashed = make_password(raw)
        if raw is None:
            return hashed  # an unusable password is random each time
        _HASHED[key] = hashed
    return _HASHED[key]


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    password = factory.django.Password(PASSWORD, transform=hashed_once)


class CourseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Course
        django_get_or_create = ("slug",)

    slug = factory.LazyFunction(lambda: settings.COURSE_SLUG)
    title = "AI Efficiency, Part 1: The Hardware Reality"


# The slug of the default offering every factory row belongs to unless told otherwise: the
# offering a site migrated from one course gets, so a test's URLs read /o/<OFFERING>/...
OFFERING = settings.COURSE_SLUG


class OfferingFactory(factory.django.DjangoModelFactory):
    """An offering; without arguments, the site's default one (created once)."""

    class Meta:
        model = Offering
        django_get_or_create = ("slug",)

    course = factory.SubFactory(CourseFactory)
    slug = OFFERING
    title = factory.LazyAttribute(lambda o: f"Offering {o.slug}")
    is_default = factory.LazyAttribute(lambda o: o.slug == OFFERING)
    follows_files = factory.LazyAttribute(lambda o: o.slug == OFFERING)


def default_offering(course: Course | None = None) -> Offering:
    """The offering of `course` that factory rows go to: named as the course (so the site's
    course's is the site's default offering, OFFERING, and another course's is another)."""
    if course is None:
        return OfferingFactory()
    return OfferingFactory(course=course, slug=course.slug)


def offering_of(obj) -> Offering:
    """`obj` itself when it is an offering, else the default offering of the course `obj`."""
    return obj if isinstance(obj, Offering) else default_offering(obj)


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
    """An enrolment; `course=` (a course) means that course's default offering."""

    class Meta:
        model = Enrollment

    class Params:
        course = None

    user = factory.SubFactory(UserFactory)
    offering = factory.LazyAttribute(
        lambda o: offering_of(o.course) if o.course else OfferingFactory()
    )
    role = Role.STUDENT


def site_role(user, role: str = "author") -> SiteRole:
    return SiteRole.objects.get_or_create(user=user, role=role)[0]


# -- QUIZZES ---------------------------------------------------------------------------------
# Question templates, versions, quizzes, items, attempts, variants and responses. Templates are
# built from the example files in content/questions/examples/ (pass `example="<slug>"`).

import hashlib  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

from quizzes.models import (  # noqa: E402
    Attempt,
    QuestionTemplate,
    Quiz,
    QuizItem,
    Response,
    TemplateVersion,
    Variant,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "content" / "questions" / "examples"


def example_source(slug: str) -> str:
    """The YAML text of an example template under content/questions/examples/."""
    return (EXAMPLES / f"{slug}.yaml").read_text(encoding="utf-8")


class QuestionTemplateFactory(factory.django.DjangoModelFactory):
    """A published template; `example="kv-cache-fits"` takes its source from the examples."""

    class Meta:
        model = QuestionTemplate
        django_get_or_create = ("course", "slug")
        skip_postgeneration_save = True

    class Params:
        example = "decode-step-memory-floor"

    course = factory.SubFactory(CourseFactory)
    slug = factory.LazyAttribute(lambda o: o.example)
    title = factory.LazyAttribute(lambda o: o.example.replace("-", " ").capitalize())
    chapter_slug = "inference"
    status = "published"
    draft_source = factory.LazyAttribute(lambda o: example_source(o.example))

    @factory.post_generation
    def publish(obj, create, extracted, **kwargs):
        if not create or obj.current_version_id or extracted is False:
            return
        obj.current_version = TemplateVersionFactory(template=obj, source=obj.draft_source)
        obj.save(update_fields=["current_version"])


class TemplateVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TemplateVersion

    template = factory.SubFactory(QuestionTemplateFactory, publish=False)
    number = factory.Sequence(lambda n: n + 1)
    source = factory.LazyAttribute(lambda o: o.template.draft_source)
    content_hash = factory.LazyAttribute(lambda o: hashlib.sha256(o.source.encode()).hexdigest())
    title = factory.LazyAttribute(lambda o: o.template.title)


class QuizFactory(factory.django.DjangoModelFactory):
    """A quiz; `course=` (a course or an offering) means that course's default offering."""

    class Meta:
        model = Quiz

    class Params:
        course = None

    offering = factory.LazyAttribute(
        lambda o: offering_of(o.course) if o.course else OfferingFactory()
    )
    slug = factory.Sequence(lambda n: f"quiz-{n}")
    title = factory.Sequence(lambda n: f"Quiz {n}")
    mode = "homework"
    tries_per_variant = 3
    is_published = True


class QuizItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = QuizItem

    quiz = factory.SubFactory(QuizFactory)
    template = factory.SubFactory(
        QuestionTemplateFactory, course=factory.SelfAttribute("..quiz.offering.course")
    )
    position = factory.Sequence(lambda n: n + 1)
    points = 1


class AttemptFactory(factory.django.DjangoModelFactory):
    """A bare attempt row; prefer `quizzes.services.attempts.start_attempt` for real ones."""

    class Meta:
        model = Attempt

    quiz = factory.SubFactory(QuizFactory)
    student = factory.SubFactory(UserFactory)
    number = factory.Sequence(lambda n: n + 1)


class VariantFactory(factory.django.DjangoModelFactory):
    """A variant generated by the engine from a fixed seed of the item's current version."""

    class Meta:
        model = Variant

    attempt = factory.SubFactory(AttemptFactory)
    item = factory.SubFactory(QuizItemFactory, quiz=factory.SelfAttribute("..attempt.quiz"))
    version = factory.LazyAttribute(lambda o: o.item.template.current_version)
    index = 0

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        from quizzes.services.questions import new_variant_fields

        seed = (
            kwargs.pop("seed_bytes", None)
            or hashlib.sha256(
                f"{kwargs['attempt'].pk}-{kwargs['item'].pk}-{kwargs.get('index', 0)}".encode()
            ).digest()
        )
        for name, value in new_variant_fields(kwargs["version"], seed).items():
            kwargs.setdefault(name, value)
        return super()._create(model_class, *args, **kwargs)


class ResponseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Response

    variant = factory.SubFactory(VariantFactory)
    part_id = "t"
    raw = "1 ms"
    status = "incorrect"
    score = 0.0
    try_number = 1
    idempotency_key = factory.LazyFunction(lambda: uuid.uuid4().hex)


def make_quiz(where, examples=("decode-step-memory-floor",), **fields) -> Quiz:
    """A published quiz over example templates, one item per example, in order, in the offering
    `where` (or the default offering of the course `where`); templates are its course's."""
    offering = offering_of(where)
    quiz = QuizFactory(offering=offering, **fields)
    for position, slug in enumerate(examples, start=1):
        template = QuestionTemplateFactory(course=offering.course, example=slug)
        QuizItemFactory(quiz=quiz, template=template, position=position)
    return quiz


def check_answer(variant, student, raw, part="t", *, now=None):
    """A student's homework Check of `raw` on one part, through the service, with a fresh
    idempotency key (a new try each call)."""
    from django.utils import timezone

    from quizzes.services import attempts

    return attempts.submit_response(
        variant=variant,
        part_id=part,
        raw=raw,
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=now or timezone.now(),
    )
