"""spyne serving AddValues, for comparison only; runs from its own venv (bench/README.md).

spyne is never a dependency of the service: bench/requirements-spyne.txt installs it into
bench/.work/venv-spyne. POST takes SOAP 1.2 envelopes; GET takes the values from the query
string (spyne's HttpRpc) and answers a SOAP 1.2 envelope, like the service's SOAP-response MEP.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from spyne import Application, Integer32, ServiceBase, rpc
from spyne.protocol.http import HttpRpc
from spyne.protocol.soap import Soap12
from spyne.server.wsgi import WsgiApplication

NAMESPACE = os.environ.get("SOAP_NAMESPACE") or "http://example.org/calculator"


class Calculator(ServiceBase):
    @rpc(
        Integer32(min_occurs=1, nillable=False),
        Integer32(min_occurs=1, nillable=False),
        _returns=Integer32,
        _out_variable_name="Result",
    )
    # The parameter names are the WSDL's element names.
    def AddValues(ctx, FirstValue: int, SecondValue: int) -> int:
        return FirstValue + SecondValue


def _app(in_protocol) -> WsgiApplication:
    return WsgiApplication(
        Application([Calculator], tns=NAMESPACE, in_protocol=in_protocol, out_protocol=Soap12())
    )


_POST = _app(Soap12(validator="lxml"))
_GET = _app(HttpRpc(validator="soft"))


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    if environ["REQUEST_METHOD"] == "GET":
        # HttpRpc finds the operation by the last path segment.
        environ = {**environ, "PATH_INFO": "/AddValues"}
        return _GET(environ, start_response)
    return _POST(environ, start_response)
