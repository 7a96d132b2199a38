from django.urls import path

from . import views

app_name = "courseware"

urlpatterns = [
    path("", views.home, name="home"),
    path("chapters/<slug:slug>/", views.chapter_detail, name="chapter_detail"),
]
