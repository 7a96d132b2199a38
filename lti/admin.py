"""Admin for platform registrations: django-lti's, without the private-key field, with framing."""

from __future__ import annotations

from django.contrib import admin
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import ContextOffering, GradeSync, PlatformFraming, PlatformTemplate, QuizLineItem


class DeploymentInline(admin.TabularInline):
    model = LtiDeployment
    fields = ["deployment_id", "is_active"]
    extra = 1


class FramingInline(admin.StackedInline):
    model = PlatformFraming
    can_delete = False


class TemplateInline(admin.StackedInline):
    model = PlatformTemplate
    can_delete = False
    verbose_name = "offering a new LMS course is copied from"


if admin.site.is_registered(LtiRegistration):
    admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class RegistrationAdmin(admin.ModelAdmin):
    # No key fields: the tool signs with its own key pair (lti_tool.Key), published at
    # /lti/jwks/; a private key is never shown or typed into a form.
    list_display = ["name", "issuer", "client_id", "is_active"]
    fields = ["name", "issuer", "client_id", "audience", "auth_url", "token_url", "keyset_url"]
    fields += ["is_active"]
    inlines = [DeploymentInline, FramingInline, TemplateInline]


@admin.register(ContextOffering)
class ContextOfferingAdmin(admin.ModelAdmin):
    """Which offering each LMS course maps to (made by its instructor's first launch)."""

    list_display = ["context", "offering"]
    list_select_related = ["context", "offering"]


@admin.register(QuizLineItem)
class QuizLineItemAdmin(admin.ModelAdmin):
    list_display = ["quiz", "context", "resource_link", "url"]
    readonly_fields = ["context", "resource_link", "quiz", "url", "lineitems_url", "scopes"]


@admin.register(GradeSync)
class GradeSyncAdmin(admin.ModelAdmin):
    list_display = ["user", "line_item", "status", "sent_score", "sent_at", "tries"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in GradeSync._meta.fields]
