"""Settings, read from the environment with safe development defaults.

Environment:
    DJANGO_SECRET_KEY      required when DJANGO_DEBUG=0 (the default); `make run` generates one.
    DJANGO_DEBUG           "1" for Django's debug pages (never in production); default "0".
    DATABASE_URL           e.g. postgres://user:pass@host:5432/db; default: SQLite in the checkout.
    DJANGO_ALLOWED_HOSTS   comma-separated; default "127.0.0.1,localhost".
    DJANGO_INSECURE_HTTP   "1" serves over plain HTTP (loopback development, tests, load tests):
                           HTTPS redirects, HSTS and secure-only cookies are then off.
    GRADING_POOL_SIZE      worker processes that grade formulas (default 2).
    DJANGO_FRAME_ANCESTORS comma-separated origins allowed to frame the site (an LMS); default
                           none: frames are denied (CSP frame-ancestors 'none', X-Frame-Options).
    DJANGO_CSP_REPORT_URI  where browsers report CSP violations (optional).
    DJANGO_LOGIN_FAILURE_LIMIT   wrong passwords before a login lock (default 5).
    DJANGO_LOGIN_COOLOFF_MINUTES how long a lock lasts (default 15).
    DJANGO_LOGIN_LOCKOUT   "combination" (the account from that address; default) or "either"
                           (the account from anywhere, and the address for any account).
    DJANGO_PROXY_COUNT     trusted reverse proxies in front of the site (default 0), so that
                           the client's address is read from X-Forwarded-For.
    DJANGO_SESSION_DAYS    how long a login lasts (default 14).
    DJANGO_DB_PREPARED     PostgreSQL: "1" (default) binds parameters on the server and keeps
                           the plans of repeated queries per connection; "0" for a connection
                           pooler that cannot keep prepared statements (docs/deploy.md).
    DJANGO_TASKS_BACKEND   the background-task backend class (default: the database backend,
                           which needs no other service; docs/deploy.md for a Redis one).
    QUIZ_EXPIRY_SWEEP_SECONDS  how often the task worker closes expired attempts (default 60).
    QUIZ_GRADING_INLINE_AFTER_SECONDS  a submitted exam the worker has not graded after this
                           long is graded by its results page instead (default 30).
    DJANGO_EXPORTS_ROOT    where background exports are written (default: exports/ in the
                           checkout; private: served only through the staff's download view).
    DJANGO_EXPORTS_KEPT_HOURS  how long a prepared export stays downloadable (default 24).
    DJANGO_STATIC_ROOT     where `collectstatic` writes (default: staticfiles/ in the checkout).
    LOG_FORMAT             "text" (default) or "json": one JSON object per log line.
    DJANGO_LOG_LEVEL       the console's level (default WARNING).
    SENTRY_DSN             report errors to Sentry (off when unset); SENTRY_ENVIRONMENT,
                           SENTRY_RELEASE, SENTRY_TRACES_SAMPLE_RATE (default 0) refine it.
    LTI_CONTENT_DEVELOPER_IS_AUTHOR  "1": an LMS launch with the ContentDeveloper role makes
                           its user a site-wide author; default "0" (docs/lti.md).
    DJANGO_SITE_URL        the site's public address (https://quiz.example.edu): the only host
                           a password-reset e-mail links to, whatever Host a request names.
    DJANGO_EMAIL_BACKEND   Django's e-mail backend; set, or EMAIL_HOST set, turns on password
                           reset by e-mail (`make run` uses the console backend: mail is
                           printed). EMAIL_HOST, EMAIL_PORT (587), EMAIL_HOST_USER,
                           EMAIL_HOST_PASSWORD, EMAIL_USE_TLS ("1"), DEFAULT_FROM_EMAIL.
    PASSWORD_LINK_HOURS    how long an instructor's set-password link lasts (default 72).
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.observability import init_sentry, logging_config
from config.security import content_security_policy, lockout_parameters, origins

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_flag("DJANGO_DEBUG", False)
INSECURE_HTTP = env_flag("DJANGO_INSECURE_HTTP", False)

_DEV_SECRET = "django-insecure-development-only-key-never-use-in-production-000000"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random value "
            "(or DJANGO_DEBUG=1 for a throwaway development key); `make run` does this for you."
        )
    SECRET_KEY = _DEV_SECRET
elif not DEBUG and (SECRET_KEY.startswith("django-insecure") or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is too weak for DJANGO_DEBUG=0: use at least 50 random characters."
    )

ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
    if h.strip()
]

INSTALLED_APPS = [
    "config.apps.SiteAdminConfig",  # Django's admin with the site's AdminSite (config/admin.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "django_guid",  # the request id (config/observability.py)
    "courseware",
    "quizzes",
    # LTI 1.3 (issue 18): django-lti's registrations, keys and launch records, and our app.
    "lti_tool",
    "lti",
    # The task worker's heartbeat and the health endpoints (issue 33).
    "health",
]

FRAME_ANCESTORS = origins(os.environ.get("DJANGO_FRAME_ANCESTORS", ""))

# The header middlewares come first, so that every response carries their headers: static
# files, and the early answers of the middlewares below (a refused Host or NUL character).
MIDDLEWARE = [
    # First, so that every response (early answers included) and every log line of a request
    # carries its id (config/observability.py).
    "config.observability.request_id_middleware",  # django-guid's, and the id forgotten after
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    *([] if FRAME_ANCESTORS else ["django.middleware.clickjacking.XFrameOptionsMiddleware"]),
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Outside the session middleware, so that it sees the cookies that middleware sets: a
    # session opened by an LTI launch may be framed by its platform (lti/middleware.py).
    "lti.middleware.LtiFrameMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "courseware.middleware.RejectNullCharactersMiddleware",
    # After the session and the user: each reader's dates in their own zone.
    "courseware.middleware.TimeZoneMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a lockout raised during authentication into a page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

# The answer kinds' own templates live in their folders (quizzes/engine/kinds/<kind>/), which
# the pure engine cannot hand to Django: this directory makes them "kinds/<kind>/input.html".
KINDS_TEMPLATE_ROOT = BASE_DIR / "quizzes" / "engine"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates", KINDS_TEMPLATE_ROOT],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "courseware.context_processors.course",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers proceed while one writer commits; the timeout makes concurrent
    # submissions wait for the lock instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_flag(
    "DJANGO_DB_PREPARED", True
):
    # Parameters bound on the server, and a query run a second time on a connection prepared:
    # PostgreSQL then plans the few queries every request makes (the session, the user, the
    # answer posts' variant lookup) once per connection instead of once per request, which
    # measured about 60% of its CPU per autosave (docs/BENCHMARKS.md, "Load").
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"server_side_binding": True, "prepare_threshold": 2}
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Argon2id first (config/hashers.py: OWASP's parameters, ~35 ms of CPU a login against
# PBKDF2's ~0.5 s); the others (Django's default list) only read hashes stored before, and
# Django re-hashes such a password with Argon2id at its owner's next successful login.
PASSWORD_HASHERS = [
    "config.hashers.OwaspArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

# django-axes first: it refuses a locked-out login before any password is checked, on every
# login path (the site's, the admin's, any future one that calls authenticate()).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("DJANGO_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("DJANGO_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = lockout_parameters(os.environ.get("DJANGO_LOGIN_LOCKOUT", "combination"))
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "courseware.throttling.AxesHandler"
AXES_LOCKOUT_CALLABLE = "courseware.throttling.locked_out"
AXES_CLIENT_IP_CALLABLE = "courseware.throttling.client_ip"
PROXY_COUNT = int(os.environ.get("DJANGO_PROXY_COUNT", "0"))

# E-mail: only for password reset. Off unless a backend or an SMTP host is configured; then a
# student resets their own password through Django's password reset (courseware.passwords),
# throttled per address and per requester, each reset link valid for two hours.
EMAIL_BACKEND = os.environ.get("DJANGO_EMAIL_BACKEND", "") or (
    "django.core.mail.backends.smtp.EmailBackend" if os.environ.get("EMAIL_HOST") else ""
)
SITE_URL = os.environ.get("DJANGO_SITE_URL", "").rstrip("/")
# In production a reset e-mail needs SITE_URL (its links never follow a request's Host).
PASSWORD_RESET_BY_EMAIL = bool(EMAIL_BACKEND) and bool(SITE_URL or DEBUG or INSECURE_HTTP)
EMAIL_BACKEND = EMAIL_BACKEND or "django.core.mail.backends.dummy.EmailBackend"
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get(
    "DEFAULT_FROM_EMAIL", "The Hardware Reality <noreply@localhost>"
)
PASSWORD_RESET_TIMEOUT = 2 * 60 * 60
PASSWORD_LINK_HOURS = int(os.environ.get("PASSWORD_LINK_HOURS", "72"))

LOGIN_URL = "login"
# By role: an instructor lands on the dashboard, an author in the studio (quizzes.views.landing).
LOGIN_REDIRECT_URL = "site:landing"
LOGOUT_REDIRECT_URL = "courseware:home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
# A kind's script or style sheet, if it has one, is in its folder's static/ and served as
# static/kinds/<kind>/<file>.
STATICFILES_DIRS = [BASE_DIR / "static"] + [
    (f"kinds/{folder.parent.name}", folder)
    for folder in sorted((KINDS_TEMPLATE_ROOT / "kinds").glob("*/static"))
]
# Serve straight from the app and project folders, so no collectstatic step is needed to run.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# Fingerprinted names (so whitenoise caches them for ten years) and gzip variants, written by
# `collectstatic` (make run and the deployment run it). With DEBUG on, `{% static %}` gives plain
# names; the tests use plain storage (tests/conftest.py), as Django advises for this storage.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# The book and question bank this site serves (site-wide content). The offerings that teach it
# (rosters, quizzes, gradebooks) are rows, each named in its pages' URLs (/o/<offering>/).
COURSE_SLUG = os.environ.get("COURSE_SLUG", "hardware-reality")
# Whether an LMS launch with the ContentDeveloper role makes its user a site-wide author (who
# writes the question bank every offering draws on). Off unless the site says so: a course
# designer in one LMS course is nobody's author here by default.
LTI_CONTENT_DEVELOPER_IS_AUTHOR = os.environ.get("LTI_CONTENT_DEVELOPER_IS_AUTHOR", "0") == "1"
# The question bank's folder: templates, and quiz files in its quizzes/ folders. The one
# definition: sync_questions, validate_questions and the bank's reader all read it from here.
QUESTIONS_DIR = Path(os.environ.get("QUESTIONS_DIR", BASE_DIR / "content" / "questions"))
# Wall-clock budgets (seconds) of the studio work that runs inside a web request: a draft's
# preview, and its validation over many seeds (or an upload's, shared by its files).
QUIZ_PREVIEW_BUDGET_SECONDS = float(os.environ.get("QUIZ_PREVIEW_BUDGET_SECONDS", "3"))
QUIZ_VALIDATION_BUDGET_SECONDS = float(os.environ.get("QUIZ_VALIDATION_BUDGET_SECONDS", "20"))
# The one publication gate: the seeds a template is validated over before the studio's Publish,
# the studio's upload or `import_questions` makes it a version (and `validate_questions`'s default).
QUIZ_PUBLICATION_SEEDS = int(os.environ.get("QUIZ_PUBLICATION_SEEDS", "200"))

# Background work (regrades, long validations, closing expired attempts, LMS grade passback)
# runs in a task worker (`manage.py worker`, started by `make run`). The database backend keeps
# the queue in the site's own database, SQLite or PostgreSQL, so no other service is needed.
TASKS = {
    "default": {
        "BACKEND": os.environ.get("DJANGO_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
    }
}
QUIZ_EXPIRY_SWEEP_SECONDS = int(os.environ.get("QUIZ_EXPIRY_SWEEP_SECONDS", "60"))
# A submitted exam is graded by the task worker; one still waiting after this long is graded by
# the next request for its results page (or the expiry sweep), exactly once all the same.
QUIZ_GRADING_INLINE_AFTER_SECONDS = int(os.environ.get("QUIZ_GRADING_INLINE_AFTER_SECONDS", "30"))
# Large exports prepared by the task worker (`services.instructor.response_export`): a private
# folder no URL serves (the download view checks the offering's staff), and how long a file is
# kept before the worker's sweep removes it.
EXPORTS_ROOT = Path(os.environ.get("DJANGO_EXPORTS_ROOT", BASE_DIR / "exports"))
EXPORTS_KEPT_HOURS = int(os.environ.get("DJANGO_EXPORTS_KEPT_HOURS", "24"))

# Uploads are small text files (question templates); refuse anything large early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2000

SESSION_COOKIE_HTTPONLY = True
# A login lasts two weeks (Django's default, stated here because the exam day depends on it): a
# student who logged in before class is never sent back to the login page mid-exam, so a class
# pays for each password check once, not once per exam. Only a login writes the session row
# (SESSION_SAVE_EVERY_REQUEST stays off); LMS launches log in without any password.
SESSION_COOKIE_AGE = int(os.environ.get("DJANGO_SESSION_DAYS", "14")) * 24 * 60 * 60
SESSION_SAVE_EVERY_REQUEST = False
# The site's own 403 page (with its headers and a sentence saying what to do), not Django's.
CSRF_FAILURE_VIEW = "courseware.views.csrf_failure"
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
# X-Frame-Options has no allow-list: with DJANGO_FRAME_ANCESTORS set it is not sent at all and
# CSP frame-ancestors alone names who may frame the site.
X_FRAME_OPTIONS = "DENY"
CONTENT_SECURITY_POLICY = content_security_policy(
    frame_ancestors=FRAME_ANCESTORS, report_uri=os.environ.get("DJANGO_CSP_REPORT_URI", "")
)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

if not DEBUG and not INSECURE_HTTP:
    SECURE_SSL_REDIRECT = True
    # A load balancer's probe may speak plain HTTP to the app server (docs/deploy.md).
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "hardware-reality",
    }
}
if os.environ.get("REDIS_URL"):
    CACHES["default"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ["REDIS_URL"],
    }
    # Several app servers share sessions through the cache, written through to the database.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Grading limits per student (quizzes.services.grading_budget; docs/deploy.md): answers that
# cost no try (unreadable, refused, wrong dimension) are limited to GRADING_FREE_BUDGET per
# GRADING_FREE_WINDOW seconds, and one formula per student is graded at a time.
GRADING_FREE_BUDGET = int(os.environ.get("GRADING_FREE_BUDGET", "30"))
GRADING_FREE_WINDOW = int(os.environ.get("GRADING_FREE_WINDOW", "300"))
# Start the formula-grading pool when `runserver` starts serving (gunicorn: config/gunicorn.py).
GRADING_WARM_ON_START = env_flag("GRADING_WARM_ON_START", True)
# Draw a first attempt page's caches in each gunicorn worker before it takes traffic
# (quizzes.warmup.warm_before_traffic).
WARM_CACHES_ON_START = env_flag("WARM_CACHES_ON_START", True)
# The formula-grading pool (quizzes.grading.pool.configure): size, timeout (s), memory_mb,
# inline. Each one left out is read from its environment variable when used
# (GRADING_POOL_SIZE, GRADING_TIMEOUT, GRADING_WORKER_MEMORY_MB, GRADING_INLINE).
GRADING_POOL: dict = {}

# Logs and errors (config/observability.py, docs/deploy.md "Logs and errors"): a request id on
# every request and log line, X-Request-ID passed through when it is a UUID and returned; one
# JSON object a line with LOG_FORMAT=json; error reports only when SENTRY_DSN is set.
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID",
    "VALIDATE_GUID": True,
    "RETURN_HEADER": True,
    "EXPOSE_HEADER": False,
}
LOGGING_CONFIG = "config.observability.configure"
LOGGING = logging_config(
    log_format=os.environ.get("LOG_FORMAT", "text").strip().lower() or "text",
    level=os.environ.get("DJANGO_LOG_LEVEL", "WARNING"),
)
init_sentry()
