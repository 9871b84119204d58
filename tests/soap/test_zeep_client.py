"""zeep, a SOAP client we did not write, against the live server through the WSDL 1.1."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from datetime import datetime

import pytest
import requests
import zeep
from django.test import override_settings
from zeep.exceptions import Fault
from zeep.transports import Transport
from zeep.wsdl.bindings.soap import Soap11Binding, Soap12Binding

SERVICE = "CalculatorService"
PORTS = {"CalculatorSoap12Port": Soap12Binding, "CalculatorSoap11Port": Soap11Binding}


@pytest.fixture
def make_client(live_server) -> Iterator[Callable[[], zeep.Client]]:
    """zeep clients of the live server's WSDL, each on its own HTTP session. The sessions are
    closed at teardown: a keep-alive connection left open holds a live-server thread that then
    dies with a traceback when the test process exits."""
    sessions: list[requests.Session] = []

    def make() -> zeep.Client:
        session = requests.Session()
        session.trust_env = False  # straight to the live server, whatever proxy the machine sets
        sessions.append(session)
        wsdl = f"{live_server.url}/soap/calculator?wsdl"
        return zeep.Client(wsdl, transport=Transport(session=session))

    yield make
    gc.collect()  # a raised Fault's traceback cycle can hold a response, and so its connection
    for session in sessions:
        session.close()


@pytest.fixture
def client(make_client) -> zeep.Client:
    return make_client()


def test_wsdl_loads_with_both_ports_at_the_live_address(client, live_server, settings):
    ports = client.wsdl.services[SERVICE].ports

    assert {name: type(port.binding) for name, port in ports.items()} == PORTS
    for port in ports.values():
        assert port.binding_options["address"] == f"{live_server.url}/soap/calculator"
        operation = port.binding.get("AddValues")
        assert operation.soapaction == f"{settings.SOAP_NAMESPACE}/AddValuesMessage"


@pytest.mark.parametrize("port", PORTS)
def test_add_values_answers_the_sum_on_each_port(client, port):
    service = client.bind(SERVICE, port)

    assert service.AddValues(FirstValue=2, SecondValue=3) == 5
    assert service.AddValues(FirstValue=-2147483648, SecondValue=2147483647) == -1


@pytest.mark.parametrize(
    ("port", "code"), [("CalculatorSoap12Port", "Sender"), ("CalculatorSoap11Port", "Client")]
)
def test_overflow_fault_detail_parses_into_typed_values(client, port, code, settings):
    service = client.bind(SERVICE, port)

    with pytest.raises(Fault) as raised:
        service.AddValues(FirstValue=2147483647, SecondValue=1)

    fault = raised.value
    assert fault.code.rpartition(":")[2] == code
    assert "CalculationFault" in fault.message
    (detail,) = fault.detail
    failure = client.get_element(f"{{{settings.SOAP_NAMESPACE}}}CalculationFailure").parse(
        detail, client.wsdl.types
    )
    assert failure.ErrorCode == 1
    assert isinstance(failure.ErrorCode, int)
    assert "xs:int" in failure.Reason
    assert isinstance(failure.Timestamp, datetime)
    assert failure.Timestamp.tzinfo is not None


def test_schema_invalid_value_is_a_sender_fault_through_zeep(client):
    service = client.bind(SERVICE, "CalculatorSoap12Port")

    with pytest.raises(Fault) as raised:
        # zeep itself would refuse a non-integer; an out-of-range one it sends as it is.
        service.AddValues(FirstValue=2**31, SecondValue=1)

    assert raised.value.code.rpartition(":")[2] == "Sender"
    assert "schema" in raised.value.message


@override_settings(SOAP_NAMESPACE="urn:example:calculator:v2")
def test_zeep_follows_an_overridden_namespace(make_client):
    client = make_client()

    element = client.get_element("{urn:example:calculator:v2}AddValues")
    assert element.qname.namespace == "urn:example:calculator:v2"
    for port in PORTS:
        assert client.bind(SERVICE, port).AddValues(FirstValue=20, SecondValue=22) == 42
