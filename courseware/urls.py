from django.urls import path

from . import views

app_name = "courseware"

urlpatterns = [
    path("", views.home, name="home"),
    path("chapters/<slug:slug>/", views.chapter_detail, name="chapter_detail"),
    path("chapters/<slug:slug>/read/", views.mark_read, name="mark_read"),
    path("roofline/", views.roofline_chart, name="roofline_chart"),
    path("calculator/", views.calculator, name="calculator"),
    path("favicon.ico", views.favicon, name="favicon"),
]
