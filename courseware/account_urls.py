"""Account URLs that must win over ``django.contrib.auth.urls``: config/urls.py includes this
module first under ``accounts/``.  No namespace, so ``{% url 'logout' %}`` keeps working."""

from django.urls import path

from . import views

urlpatterns = [
    path("logout/", views.logout_page, name="logout"),
]
