"""Register an LMS (LTI 1.3 platform) with the values it shows for our tool."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator

from courseware.models import Offering
from lti.models import PlatformTemplate
from lti.network import hostname
from lti.tool import register_platform


class Command(BaseCommand):
    help = "Register (or update) an LTI 1.3 platform and its deployment ids."

    def add_arguments(self, parser):
        parser.add_argument("--issuer", required=True, help="The platform's issuer (iss).")
        parser.add_argument("--client-id", required=True, help="Our client id on the platform.")
        parser.add_argument(
            "--deployment-id",
            action="append",
            required=True,
            dest="deployment_ids",
            help="A deployment id (repeat for several).",
        )
        parser.add_argument("--auth-login-url", required=True, help="OIDC authorization URL.")
        parser.add_argument("--token-url", required=True, help="OAuth2 access token URL.")
        parser.add_argument("--jwks-url", required=True, help="The platform's public keyset URL.")
        parser.add_argument("--name", default="", help="A display name (default: the issuer).")
        parser.add_argument(
            "--frame-origin",
            action="append",
            default=[],
            dest="frame_origins",
            help="An origin whose pages frame ours (repeat; default: issuer and login URL).",
        )
        parser.add_argument(
            "--token-audience",
            default="",
            help="The 'aud' of our access-token requests when the LMS names one other than its "
            "token URL (Brightspace: its 'OAuth2 Audience', https://api.brightspace.com/auth/token).",
        )
        parser.add_argument(
            "--service-host",
            action="append",
            default=[],
            dest="service_hosts",
            help="A further host of the LMS's grade and roster services (repeat; the issuer's, "
            "login, token, key-set and frame-origin hosts are allowed already).",
        )
        parser.add_argument(
            "--allow-local-network",
            action="store_true",
            help="Only for a demo or test LMS: allow plain http and addresses on this machine "
            "or its private network for this platform's URLs (never for a real LMS).",
        )
        parser.add_argument(
            "--template-offering",
            default=None,
            help=(
                "The offering (its slug) that a new LMS course of this platform is copied from "
                "at its instructor's first launch (default: the site's default offering)."
            ),
        )

    def handle(self, *args, **options):
        check = URLValidator(schemes=["http", "https"])
        named = {
            "--auth-login-url": options["auth_login_url"],
            "--token-url": options["token_url"],
            "--jwks-url": options["jwks_url"],
            **{f"--frame-origin {o}": o for o in options["frame_origins"]},
        }
        for flag, url in named.items():
            try:
                check(url)
            except ValidationError:
                raise CommandError(f"{flag} must be an http(s) URL, not {url!r}.") from None
        if len(options["token_audience"].strip()) > 255:
            raise CommandError("--token-audience is longer than 255 characters.")
        hosts = []
        for host in options["service_hosts"]:
            name = hostname(host if "//" in host else f"https://{host}")
            if not name:
                raise CommandError(f"--service-host must be a host name, not {host!r}.")
            hosts.append(name)
        deployment_ids = [d.strip() for d in options["deployment_ids"] if d.strip()]
        if not deployment_ids:
            raise CommandError("Give at least one non-empty --deployment-id.")
        template = None
        if options["template_offering"]:
            template = Offering.objects.filter(slug=options["template_offering"]).first()
            if template is None:
                raise CommandError(f"No offering with the slug {options['template_offering']!r}.")
        registration, created = register_platform(
            name=options["name"],
            issuer=options["issuer"].strip(),
            client_id=options["client_id"].strip(),
            deployment_ids=deployment_ids,
            auth_login_url=options["auth_login_url"],
            token_url=options["token_url"],
            jwks_url=options["jwks_url"],
            frame_origins=options["frame_origins"],
            token_audience=options["token_audience"].strip(),
            service_hosts=hosts,
            allow_local_network=options["allow_local_network"],
        )
        if template is not None:
            PlatformTemplate.objects.update_or_create(
                registration=registration, defaults={"offering": template}
            )
        verb = "Registered" if created else "Updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {registration.issuer} (client {registration.client_id}) with "
                f"deployment(s) {', '.join(deployment_ids)}."
            )
        )
