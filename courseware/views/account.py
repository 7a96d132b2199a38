"""A person's own account settings: the time zone their dates are shown in.

The browser reports its zone on its own (`static/js/timezone.js` posts it with `detected=1`)
while the account's zone follows the browser; once the person chooses a zone here, the browser
never changes it again, until they choose "follow my browser" again.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from courseware.models import AccountPreferences
from courseware.timezones import SESSION_KEY, is_zone, place_name, zone_names


def _save(request: HttpRequest, name: str, detected: bool) -> None:
    AccountPreferences.objects.update_or_create(
        user=request.user, defaults={"time_zone": name, "time_zone_detected": detected}
    )
    request.session[SESSION_KEY] = [name, "detected" if detected else "chosen"]


@login_required
@require_http_methods(["GET", "POST"])
def time_zone(request: HttpRequest) -> HttpResponse:
    current, mode = request.account_zone, request.zone_mode
    if request.method == "POST":
        name = request.POST.get("time_zone", "").strip()[:64]
        if request.POST.get("detected") == "1":
            # The browser's report: taken only while the account follows the browser.
            if mode == "chosen" or not is_zone(name):
                return JsonResponse({"time_zone": current, "changed": False})
            if name != current:
                _save(request, name, detected=True)
            return JsonResponse({"time_zone": name, "changed": name != current})
        follow = request.POST.get("follow") == "1"
        if not follow and not is_zone(name):
            messages.error(request, "Choose a time zone from the list, like Europe/Berlin.")
            return redirect("time_zone")
        _save(request, "" if follow and not is_zone(name) else name, detected=follow)
        if follow:
            messages.success(request, "Your dates follow your browser's time zone.")
        else:
            messages.success(request, f"Your dates are shown in {name} ({place_name(name)}).")
        target = request.POST.get("next", "")
        if target and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return redirect(target)
        return redirect("time_zone")
    context = {
        "zones": zone_names(),
        "current": current,
        "mode": mode,
        "place": place_name(current) if current else "",
        "next": request.GET.get("next", ""),
    }
    return render(request, "registration/time_zone.html", context)
