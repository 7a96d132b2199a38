"""Admin for platform registrations: django-lti's, without the private-key field, with framing."""

from __future__ import annotations

from django.contrib import admin
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import GradeSync, PlatformFraming, QuizLineItem


class DeploymentInline(admin.TabularInline):
    model = LtiDeployment
    fields = ["deployment_id", "is_active"]
    extra = 1


class FramingInline(admin.StackedInline):
    model = PlatformFraming
    can_delete = False


if admin.site.is_registered(LtiRegistration):
    admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class RegistrationAdmin(admin.ModelAdmin):
    # No key fields: the tool signs with its own key pair (lti_tool.Key), published at
    # /lti/jwks/; a private key is never shown or typed into a form.
    list_display = ["name", "issuer", "client_id", "is_active"]
    fields = ["name", "issuer", "client_id", "audience", "auth_url", "token_url", "keyset_url"]
    fields += ["is_active"]
    inlines = [DeploymentInline, FramingInline]


@admin.register(QuizLineItem)
class QuizLineItemAdmin(admin.ModelAdmin):
    list_display = ["quiz", "context", "url"]
    readonly_fields = ["context", "quiz", "url", "lineitems_url", "scopes"]


@admin.register(GradeSync)
class GradeSyncAdmin(admin.ModelAdmin):
    list_display = ["user", "line_item", "status", "sent_score", "sent_at", "tries"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in GradeSync._meta.fields]
