"""Hostile XML: entities, DTDs, processing instructions, depth, text size and body size."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.test import override_settings

from tests.soap.messages import (
    ENDPOINT,
    SOAP11_NS,
    SOAP12_NS,
    add_values,
    envelope,
    envelope11,
    fault_of,
    post11,
    post12,
    result_of,
)

SECRET = "the-contents-of-a-private-file-7f3a"


@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET)
    return path


def assert_leaks_nothing(response, *secrets: str) -> None:
    text = response.content.decode("utf-8", "replace")
    for secret in (*secrets, str(settings.BASE_DIR), "Traceback", "site-packages"):
        assert secret not in text


def with_doctype(doctype: str, body: str) -> str:
    return f'<?xml version="1.0" encoding="utf-8"?>{doctype}{body}'


def test_external_file_entity_is_refused_and_the_file_is_not_read(client, secret_file):
    doctype = f'<!DOCTYPE env:Envelope [<!ENTITY xxe SYSTEM "{secret_file.as_uri()}">]>'
    body = envelope(add_values("&xxe;", 1)).split("?>", 1)[1]

    response = post12(client, with_doctype(doctype, body))

    assert response.status_code == 400
    fault = fault_of(response)
    assert fault.code == "Sender"
    assert "DOCTYPE" in fault.reason
    assert_leaks_nothing(response, SECRET, str(secret_file))


def test_external_entity_in_utf16_is_refused_without_reading_the_file(client, secret_file):
    # Bytes of UTF-16 hide the DOCTYPE keyword from a byte scan; the parser must still refuse.
    doctype = f'<!DOCTYPE env:Envelope [<!ENTITY xxe SYSTEM "{secret_file.as_uri()}">]>'
    body = envelope(add_values("&xxe;", 1)).split("?>", 1)[1]
    document = f'<?xml version="1.0" encoding="utf-16"?>{doctype}{body}'.encode("utf-16")

    response = post12(client, document)

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"
    assert_leaks_nothing(response, SECRET, str(secret_file))


def test_external_dtd_is_refused(client, secret_file):
    doctype = f'<!DOCTYPE env:Envelope SYSTEM "{secret_file.as_uri()}">'
    body = envelope11(add_values(1, 1)).split("?>", 1)[1]

    response = post11(client, with_doctype(doctype, body))

    assert response.status_code == 500
    assert fault_of(response).code == "Client"
    assert_leaks_nothing(response, SECRET, str(secret_file))


def test_billion_laughs_is_refused(client):
    entities = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10 if n > 1 else "&lol;" * 10}">'
        for n in range(1, 10)
    )
    doctype = f"<!DOCTYPE env:Envelope [{entities}]>"
    body = envelope(add_values("&lol9;", 1)).split("?>", 1)[1]

    response = post12(client, with_doctype(doctype, body))

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"
    assert b"lollol" not in response.content


def test_plain_doctype_is_refused(client):
    body = envelope(add_values(1, 1)).split("?>", 1)[1]

    response = post12(client, with_doctype("<!DOCTYPE env:Envelope>", body))

    assert response.status_code == 400
    assert "DOCTYPE" in fault_of(response).reason


@pytest.mark.parametrize(
    "body",
    [
        '<?xml-stylesheet type="text/xsl" href="file:///etc/passwd"?>'
        + envelope(add_values(1, 2)).split("?>", 1)[1],
        envelope(add_values(1, 2)) + "<?trailing instruction?>",
        envelope(add_values(1, 2).replace("<FirstValue>", "<FirstValue><?pi here?>")),
        envelope(add_values(1, 2), header='<x:H xmlns:x="urn:example:h"><?pi here?></x:H>'),
    ],
    ids=["before the root", "after the root", "in the body", "in a header block"],
)
def test_processing_instructions_are_refused(client, body):
    response = post12(client, body)

    assert response.status_code == 400
    fault = fault_of(response)
    assert fault.code == "Sender"
    assert "Processing instruction" in fault.reason
    assert b"/etc/passwd" not in response.content


def nested(depth: int) -> str:
    return '<x:H xmlns:x="urn:example:h">' + "<x:n>" * depth + "</x:n>" * depth + "</x:H>"


def test_deep_nesting_in_a_header_block_is_refused(client):
    response = post12(client, envelope(add_values(1, 2), header=nested(40)))

    assert response.status_code == 400
    assert "deeper" in fault_of(response).reason


def test_nesting_within_the_depth_limit_is_accepted(client):
    assert result_of(post12(client, envelope(add_values(1, 2), header=nested(20)))) == 3


def test_very_deep_nesting_is_refused_by_the_parser(client):
    response = post12(client, envelope(add_values(1, 2), header=nested(5000)))

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


def test_deep_nesting_in_the_body_is_refused(client):
    deep = "<FirstValue>" + "<a>" * 50 + "</a>" * 50 + "</FirstValue>"
    body = add_values(1, 2).replace("<FirstValue>1</FirstValue>", deep)

    response = post12(client, envelope(body))

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


def filled_to(size: int, text: str, make) -> str:
    """The envelope `make(filler)` makes, with a filler of `text` repeated to `size` bytes."""
    without = len(make("").encode())
    return make(text * (size - without))


@pytest.mark.parametrize(
    "make",
    [
        lambda fill: envelope(
            add_values(1, 2), header=f'<x:H xmlns:x="urn:example:h">{fill}</x:H>'
        ),
        lambda fill: envelope(add_values(fill + "1", 2)),
        lambda fill: envelope(add_values("<!-- c -->" + fill + "1", 2)),
        lambda fill: envelope(add_values("1<!-- c -->" + fill, 2)),
    ],
    ids=["header text", "whitespace before a value", "after a comment", "after a value"],
)
def test_an_envelope_of_exactly_the_body_limit_made_of_one_long_text_is_served(client, make):
    limit = settings.SOAP_MAX_BODY_BYTES
    filler = "a" if "x:H" in make("") else " "
    document = filled_to(limit, filler, make)
    assert len(document.encode()) == limit

    assert result_of(post12(client, document)) == 3


def padded(size: int) -> str:
    document = envelope(add_values(1, 2))
    padding = size - len(document.encode()) - len("<!---->")
    assert padding >= 0
    return document + "<!--" + "p" * padding + "-->"


def test_body_over_the_default_limit_is_413_sender_fault(client):
    response = post12(client, padded(64 * 1024 + 1))

    assert response.status_code == 413
    fault = fault_of(response)
    assert fault.code == "Sender"
    assert str(64 * 1024) in fault.reason


@override_settings(SOAP_MAX_BODY_BYTES=1024)
def test_body_at_the_limit_is_accepted(client):
    assert result_of(post12(client, padded(1024))) == 3


@override_settings(SOAP_MAX_BODY_BYTES=1024)
def test_body_one_byte_over_the_limit_is_413(client):
    response = post12(client, padded(1025))

    assert response.status_code == 413
    assert fault_of(response).code == "Sender"


@override_settings(SOAP_MAX_BODY_BYTES=1024)
def test_soap11_body_over_the_limit_is_413_client_fault(client):
    response = post11(client, padded(2048).replace(SOAP12_NS, SOAP11_NS))

    assert response.status_code == 413
    assert fault_of(response).code == "Client"


@override_settings(SOAP_MAX_BODY_BYTES=1024)
def test_declared_length_over_the_limit_is_413_before_reading(client):
    # The declared length alone decides: the body is never read (the test payload would
    # complain if more than its real size were read).
    response = post12(client, envelope(add_values(1, 2)), CONTENT_LENGTH="5000000")

    assert response.status_code == 413


@pytest.mark.parametrize("length", ["12abc", "-5"])
def test_content_length_that_is_not_a_number_is_a_sender_fault(client, length):
    response = post12(client, envelope(add_values(1, 2)), CONTENT_LENGTH=length)

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


def asgi_post(body: bytes, chunk: int = 4096) -> tuple[int, bytes]:
    """POST through the ASGI handler with no Content-Length, as a chunked request arrives."""
    application = get_asgi_application()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": ENDPOINT,
        "raw_path": ENDPOINT.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/soap+xml")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    chunks = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    messages = [
        {"type": "http.request", "body": part, "more_body": index < len(chunks) - 1}
        for index, part in enumerate(chunks)
    ]
    sent: list[dict] = []

    async def receive():
        if messages:
            return messages.pop(0)
        # The client stays connected: Django waits for a disconnect while the view runs and
        # cancels that wait when the response is done.
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    async_to_sync(application)(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, content


# The raw ASGI handler closes database connections at the end of a request, as in production.
@pytest.mark.django_db(transaction=True)
@override_settings(SOAP_MAX_BODY_BYTES=1024)
def test_body_without_a_declared_length_is_still_capped():
    status, content = asgi_post(padded(4096).encode())

    assert status == 413
    assert b"Sender" in content


@pytest.mark.django_db(transaction=True)
def test_body_without_a_declared_length_under_the_limit_is_answered():
    status, content = asgi_post(envelope(add_values(20, 22)).encode())

    assert status == 200
    assert b">42<" in content
