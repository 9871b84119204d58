from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class SoapcalcConfig(AppConfig):
    name = "soapcalc"
    verbose_name = "SOAP calculator"

    def ready(self) -> None:
        from core import surfaces
        from soapcalc.views import fault_for

        surfaces.register(surfaces.Surface("soap", "/soap/", error=fault_for, logs_own_faults=True))
        # Compile the request schema and the response templates at start-up, not on the first
        # request, and stop the process here if the namespace setting cannot make them.
        from soapcalc.envelopes import request_parser, result_template
        from soapcalc.versions import SOAP11, SOAP12
        from soapcalc.wsdl import ServiceMisconfigured, request_schema

        namespace = settings.SOAP_NAMESPACE
        try:
            request_schema(namespace)
        except ServiceMisconfigured as error:
            raise ImproperlyConfigured(f"SOAP_NAMESPACE {namespace!r}: {error}") from error
        for version in (SOAP12, SOAP11):
            result_template(version, namespace)
        request_parser()
