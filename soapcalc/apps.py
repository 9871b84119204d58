from django.apps import AppConfig


class SoapcalcConfig(AppConfig):
    name = "soapcalc"
    verbose_name = "SOAP calculator"
