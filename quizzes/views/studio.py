"""The authoring studio: template list, new and duplicated templates, the editor and its preview.

Views parse the request, call one function of ``quizzes.services.authoring``, render. Every
page is for the course's authors (``author_required``); htmx requests get the page's inline
partial, and every form also works as a plain POST. Versions, validation and publishing live
in ``studio_versions``, quiz items in ``studio_quizzes``, files in ``studio_files``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseware.roles import author_required
from quizzes.engine import CHAPTERS, kinds, reference
from quizzes.forms import PreviewSeedForm
from quizzes.models import QuestionTemplate, QuizItem, TemplateStatus
from quizzes.presenters.studio import diff_rows, preview_html, report_view
from quizzes.services import authoring

# The kinds a template can have: one per answer kind, or several parts.
KINDS = (*kinds.kind_names(), "multi-part")


def page(request: HttpRequest, template: str, context: dict, partial: str | None = None, **kw):
    """The whole page, or for an htmx request only the named inline partial."""
    if partial and request.htmx and not request.htmx.boosted:
        template = f"{template}#{partial}"
    return render(request, template, context, **kw)


def template_or_404(request: HttpRequest, slug: str) -> QuestionTemplate:
    return get_object_or_404(
        QuestionTemplate.objects.for_course(request.course).select_related("current_version"),
        slug=slug,
    )


# -- the list --------------------------------------------------------------------------------


@require_GET
@author_required
def template_list(request: HttpRequest) -> HttpResponse:
    filters = {
        "q": request.GET.get("q", "").strip()[:100],
        "chapter": request.GET.get("chapter", ""),
        "status": request.GET.get("status", ""),
        "kind": request.GET.get("kind", ""),
    }
    templates = (
        QuestionTemplate.objects.for_course(request.course)
        .select_related("current_version")
        .prefetch_related(
            Prefetch("quiz_items", queryset=QuizItem.objects.select_related("quiz__offering"))
        )
        .order_by("chapter_slug", "slug")
    )
    if filters["q"]:
        templates = templates.filter(
            Q(slug__icontains=filters["q"]) | Q(title__icontains=filters["q"])
        )
    if filters["chapter"] in CHAPTERS:
        templates = templates.filter(chapter_slug=filters["chapter"])
    if filters["status"] in TemplateStatus.values:
        templates = templates.filter(status=filters["status"])
    if filters["kind"] in KINDS:
        templates = templates.filter(kind=filters["kind"])
    rows = [_row(t) for t in templates]
    context = {
        "rows": rows,
        "filters": filters,
        "chapters": CHAPTERS,
        "statuses": TemplateStatus.choices,
        "kinds": KINDS,
        "starters": authoring.STARTERS,
    }
    return page(request, "studio/template_list.html", context, "table")


def _row(template: QuestionTemplate) -> dict:
    current = template.current_version
    validation = template.last_validation or {}
    quizzes = sorted(
        {f"{item.quiz.title} ({item.quiz.offering.title})" for item in template.quiz_items.all()}
    )
    return {
        "template": template,
        "version": current.number if current else None,
        "unpublished_changes": template.has_unpublished_changes,
        "validation": validation,
        "validation_stale": bool(validation)
        and validation.get("revision") != template.draft_revision,
        "quizzes": quizzes,
    }


@require_GET
@author_required
def editor_reference(request: HttpRequest) -> HttpResponse:
    """What the editor completes: the template's fields, the answer kinds' fields, every function
    and catalog (entries, fields with units), from the code's own reference."""
    response = JsonResponse(reference.as_json())
    response["Cache-Control"] = "private, max-age=3600"
    return response


# -- new templates ---------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@author_required
def template_create(request: HttpRequest) -> HttpResponse:
    form = {
        "kind": request.POST.get("kind") or request.GET.get("kind") or KINDS[0],
        "slug": request.POST.get("slug", ""),
        "title": request.POST.get("title", "")[:200],
        "chapter": request.POST.get("chapter", ""),
    }
    error = ""
    if request.method == "POST":
        try:
            template = authoring.create_template(
                course=request.course,
                user=request.user,
                kind=form["kind"],
                slug=form["slug"],
                title=form["title"],
                chapter=form["chapter"],
            )
        except authoring.AuthoringError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Created '{template.slug}' from the starter. Edit away.")
            return redirect("studio:template_edit", slug=template.slug)
    context = {
        "form": form,
        "error": error,
        "starters": authoring.STARTERS,
        "chapters": CHAPTERS,
    }
    return render(request, "studio/template_create.html", context, status=400 if error else 200)


@require_http_methods(["GET", "POST"])
@author_required
def template_duplicate(request: HttpRequest, slug: str) -> HttpResponse:
    original = template_or_404(request, slug)
    new_slug = request.POST.get("slug", f"{original.slug}-copy")
    error = ""
    if request.method == "POST":
        try:
            copy = authoring.duplicate_template(template=original, slug=new_slug, user=request.user)
        except authoring.AuthoringError as exc:
            error = str(exc)
        else:
            messages.success(request, f"'{copy.slug}' is a draft copy of '{original.slug}'.")
            return redirect("studio:template_edit", slug=copy.slug)
    context = {"template": original, "new_slug": new_slug, "error": error}
    return render(request, "studio/template_duplicate.html", context, status=400 if error else 200)


# -- the editor ------------------------------------------------------------------------------


def _responses(request: HttpRequest, seed: PreviewSeedForm) -> dict:
    """The "try" boxes: ``response_<part>`` fields (an input may send several values), when
    they were typed for this seed's numbers: under new numbers an old answer is no answer
    (it would be graded again, wrong, under each new seed)."""
    tried = request.POST.get("tried_seed")
    if tried is not None and tried != str(seed.data.get("seed", "")):
        return {}
    found = {}
    for key in request.POST:
        if key.startswith("response_"):
            values = [v.strip()[:500] for v in request.POST.getlist(key) if v.strip()]
            if values:
                found[key.removeprefix("response_")] = values if len(values) > 1 else values[0]
    return found


def _workbench(text: str, seed: PreviewSeedForm, responses: dict, slug: str) -> dict:
    # One parse serves both the issue list and the preview.
    parsed, issues = authoring.check_draft(text, slug=slug)
    preview = authoring.build_preview(parsed, seed.seed_or_default(), responses, issues=issues)
    return {
        "issues": issues,
        "preview": preview,
        "html": preview_html(preview),
        "responses": responses,
        # A refused seed: its message, and the text as typed, back in the seed box.
        "seed_error": seed.error_text(),
        "seed_text": seed.data.get("seed", "") if seed.errors else preview.seed,
    }


def _editor_context(template: QuestionTemplate, text: str, revision: int, bench: dict) -> dict:
    return {
        "template": template,
        "text": text,
        "revision": revision,
        "line_count": range(1, text.count("\n") + 2),
        "validation": report_view(template.last_validation),
        **bench,
    }


@require_http_methods(["GET", "POST"])
@author_required
def template_edit(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the editor on the stored draft. POST: save the draft (errors and all)."""
    template = template_or_404(request, slug)
    if request.method == "POST":
        return _save(request, template)
    seed = PreviewSeedForm(request.GET)
    bench = _workbench(template.draft_source, seed, {}, template.slug)
    context = _editor_context(template, template.draft_source, template.draft_revision, bench)
    return render(request, "studio/template_edit.html", context)


def _save(request: HttpRequest, template: QuestionTemplate) -> HttpResponse:
    text = request.POST.get("source", "")
    try:
        revision = int(request.POST.get("draft_revision", ""))
    except ValueError:
        messages.error(request, "The form lost its revision number; reload the editor.")
        return redirect("studio:template_edit", slug=template.slug)
    try:
        issues = authoring.save_draft(
            template=template, text=text, revision=revision, user=request.user
        )
    except authoring.DraftConflict as conflict:
        context = {
            "template": template,
            "conflict": conflict,
            "mine": text,
            "rows": diff_rows(conflict.theirs, text),
        }
        return render(request, "studio/draft_conflict.html", context, status=409)
    except authoring.AuthoringError as refusal:
        # Nothing was stored: the editor shows the posted text again, with the reason.
        messages.error(request, str(refusal))
        bench = _workbench(text, PreviewSeedForm(request.POST), {}, template.slug)
        context = _editor_context(template, text, revision, bench)
        context["unsaved"] = True
        return render(request, "studio/template_edit.html", context, status=400)
    if issues:
        messages.warning(
            request,
            f"Draft saved with {len(issues)} error(s): your text is kept; the published "
            "version is untouched. Fix the errors before publishing.",
        )
    else:
        messages.success(request, f"Draft saved (revision {template.draft_revision}).")
    # The seed box's text travels as typed: the editor's form then judges it (and says so).
    return redirect(f"{request.path}?{urlencode({'seed': request.POST.get('seed', '')[:50]})}")


@require_POST
@author_required
def template_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The live preview of the text being edited (not saved): errors, a variant, try boxes."""
    template = template_or_404(request, slug)
    text = request.POST.get("source", template.draft_source)
    if request.POST.get("new_seed"):
        seed = PreviewSeedForm({"seed": authoring.random_seed()})
    else:
        seed = PreviewSeedForm(request.POST)
    bench = _workbench(text, seed, _responses(request, seed), template.slug)
    try:
        revision = int(request.POST.get("draft_revision", template.draft_revision))
    except ValueError:
        revision = template.draft_revision
    context = _editor_context(template, text, revision, bench)
    context["unsaved"] = text != template.draft_source
    return page(request, "studio/template_edit.html", context, "workbench")
