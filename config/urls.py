from django.contrib import admin
from django.urls import path

from config.health import healthz
from soapcalc.views import calculator

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("soap/calculator", calculator, name="soap-calculator"),
]
