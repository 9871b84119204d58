"""WS-Security UsernameToken on the SOAP endpoint: zeep and node-soap against a live server,
hand-written envelopes for replays and hostile headers, and the policy in both WSDLs."""

from __future__ import annotations

import base64
import gc
import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
import requests
import zeep
from django.test import override_settings
from lxml import etree
from zeep.exceptions import Fault
from zeep.transports import Transport
from zeep.wsse.username import UsernameToken

from tests.soap.messages import (
    ENDPOINT,
    SOAP11_NS,
    SOAP12_NS,
    add_values,
    envelope,
    envelope11,
    post11,
    post12,
)
from tests.support.node import run_module

WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
PROFILE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0"
PASSWORD_TEXT = f"{PROFILE}#PasswordText"
PASSWORD_DIGEST = f"{PROFILE}#PasswordDigest"
WSP = "http://www.w3.org/ns/ws-policy"
SP = "http://docs.oasis-open.org/ws-sx/ws-securitypolicy/200702"
WSDL = "http://schemas.xmlsoap.org/wsdl/"
WSDL2 = "http://www.w3.org/ns/wsdl"

SERVICE = "CalculatorService"
PORTS = ("CalculatorSoap12Port", "CalculatorSoap11Port")
FAILED = f"{{{WSSE}}}FailedAuthentication"
INVALID = f"{{{WSSE}}}InvalidSecurity"
UNSUPPORTED = f"{{{WSSE}}}UnsupportedSecurityToken"


# --- helpers ----------------------------------------------------------------------------------


def instant(delta: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_nonce() -> str:
    return base64.b64encode(os.urandom(16)).decode()


def username_token(
    username: str | None,
    password: str | None,
    *,
    password_type: str | None = PASSWORD_TEXT,
    nonce: str | None = None,
    created: str | None = None,
    extra: str = "",
) -> str:
    parts = []
    if username is not None:
        parts.append(f"<wsse:Username>{username}</wsse:Username>")
    if password is not None:
        type_attribute = f' Type="{password_type}"' if password_type else ""
        parts.append(f"<wsse:Password{type_attribute}>{password}</wsse:Password>")
    if nonce is not None:
        parts.append(f"<wsse:Nonce>{nonce}</wsse:Nonce>")
    if created is not None:
        parts.append(f"<wsu:Created>{created}</wsu:Created>")
    return f"<wsse:UsernameToken>{''.join(parts)}{extra}</wsse:UsernameToken>"


def security(content: str, *, attributes: str = "") -> str:
    return (
        f'<wsse:Security xmlns:wsse="{WSSE}" xmlns:wsu="{WSU}"{attributes}>{content}'
        "</wsse:Security>"
    )


def fault_codes(response) -> tuple[str, str | None]:
    """(code, subcode) of a fault answer as Clark names; SOAP 1.1 has only the faultcode."""
    root = etree.fromstring(response.content)
    if root.tag == f"{{{SOAP12_NS}}}Envelope":
        code = root.find(f".//{{{SOAP12_NS}}}Code")
        value = code.find(f"{{{SOAP12_NS}}}Value")
        subvalue = code.find(f"{{{SOAP12_NS}}}Subcode/{{{SOAP12_NS}}}Value")
        return _resolve(value), _resolve(subvalue) if subvalue is not None else None
    faultcode = root.find(f".//{{{SOAP11_NS}}}Fault/faultcode")
    return _resolve(faultcode), None


def _resolve(element: etree._Element) -> str:
    prefix, _, local = element.text.partition(":")
    return f"{{{element.nsmap[prefix]}}}{local}"


def assert_security_fault(response, subcode: str) -> None:
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"
    assert fault_codes(response) == (f"{{{SOAP12_NS}}}Sender", subcode)


def post_with_header(client, header: str, first: int = 2, second: int = 3):
    return post12(client, envelope(add_values(first, second), header=header))


def result_of(response) -> int:
    assert response.status_code == 200, response.content
    return int(etree.fromstring(response.content).findtext(".//{*}Result"))


@pytest.fixture
def alice_token(alice, token_for) -> str:
    return token_for(alice)


# --- zeep ------------------------------------------------------------------------------------


@pytest.fixture
def make_client(live_server) -> Iterator[Callable[..., zeep.Client]]:
    """zeep clients of the live server's WSDL with a wsse plug-in; sessions closed at teardown
    (see tests/soap/test_zeep_client.py)."""
    sessions: list[requests.Session] = []

    def make(wsse=None) -> zeep.Client:
        session = requests.Session()
        session.trust_env = False
        sessions.append(session)
        wsdl = f"{live_server.url}/soap/calculator?wsdl"
        return zeep.Client(wsdl, transport=Transport(session=session), wsse=wsse)

    yield make
    gc.collect()
    for session in sessions:
        session.close()


@pytest.mark.parametrize("port", PORTS)
def test_zeep_username_token_with_password_text_is_served(make_client, alice, alice_token, port):
    client = make_client(UsernameToken(alice.username, alice_token))

    assert client.bind(SERVICE, port).AddValues(FirstValue=2, SecondValue=3) == 5


@pytest.mark.parametrize("port", PORTS)
def test_zeep_password_digest_is_refused_as_unsupported(make_client, alice, alice_token, port):
    client = make_client(UsernameToken(alice.username, alice_token, use_digest=True))

    with pytest.raises(Fault) as raised:
        client.bind(SERVICE, port).AddValues(FirstValue=2, SecondValue=3)

    fault = raised.value
    assert "PasswordText" in fault.message
    if port == "CalculatorSoap12Port":
        assert fault.code.rpartition(":")[2] == "Sender"
        assert [code.text for code in fault.subcodes] == [UNSUPPORTED]
    else:
        assert fault.code == "wsse:UnsupportedSecurityToken"


@pytest.mark.parametrize("port", PORTS)
def test_zeep_wrong_token_is_failed_authentication(make_client, alice, port):
    client = make_client(UsernameToken(alice.username, "not-a-token-of-anyone"))

    with pytest.raises(Fault) as raised:
        client.bind(SERVICE, port).AddValues(FirstValue=2, SecondValue=3)

    if port == "CalculatorSoap12Port":
        assert [code.text for code in raised.value.subcodes] == [FAILED]
    else:
        assert raised.value.code == "wsse:FailedAuthentication"


@override_settings(SOAP_WSSE_REQUIRED=True)
def test_zeep_without_a_token_is_refused_when_one_is_required(make_client, alice, alice_token):
    with pytest.raises(Fault) as raised:
        make_client().bind(SERVICE, PORTS[0]).AddValues(FirstValue=2, SecondValue=3)
    assert [code.text for code in raised.value.subcodes] == [FAILED]

    client = make_client(UsernameToken(alice.username, alice_token))
    assert client.bind(SERVICE, PORTS[0]).AddValues(FirstValue=2, SecondValue=3) == 5


# --- node-soap -------------------------------------------------------------------------------

NODE_SOAP_WSSECURITY = """
import soap from 'soap';
const [wsdl, username, password, options] = process.argv.slice(1);
const client = await soap.createClientAsync(wsdl);
client.setSecurity(new soap.WSSecurity(username, password, JSON.parse(options)));
const answers = [];
for (const [first, second] of [[2, 3], [40, 2]]) {
  try {
    const [result] = await client.AddValuesAsync({ FirstValue: first, SecondValue: second });
    answers.push(result.Result);
  } catch (error) {
    answers.push({ status: error.response && error.response.status, body: error.body });
  }
}
console.log(JSON.stringify(answers));
"""


@pytest.mark.parametrize(
    "options",
    [
        {"passwordType": "PasswordText"},
        {"passwordType": "PasswordText", "hasNonce": True, "mustUnderstand": True},
    ],
    ids=["text", "text-nonce-mustunderstand"],
)
def test_node_soap_wssecurity_is_served(live_server, alice, alice_token, options):
    answers = run_module(
        NODE_SOAP_WSSECURITY,
        f"{live_server.url}{ENDPOINT}?wsdl",
        alice.username,
        alice_token,
        json.dumps(options),
    )

    assert answers == [5, 42]


def test_node_soap_wssecurity_with_a_wrong_token_is_failed_authentication(live_server, alice):
    answers = run_module(
        NODE_SOAP_WSSECURITY,
        f"{live_server.url}{ENDPOINT}?wsdl",
        alice.username,
        "wrong",
        '{"passwordType": "PasswordText"}',
    )

    for answer in answers:
        # node-soap calls the SOAP 1.1 port, where every fault is a 500 (docs/soap.md).
        assert answer["status"] == 500
        assert ">wsse:FailedAuthentication</faultcode>" in answer["body"]


# --- replays and the Created window ----------------------------------------------------------


def test_the_same_nonce_is_accepted_once(client, alice, alice_token):
    header = security(
        username_token(alice.username, alice_token, nonce=new_nonce(), created=instant())
    )
    body = envelope(add_values(2, 3), header=header)

    assert result_of(post12(client, body)) == 5
    replay = post12(client, body)

    assert_security_fault(replay, FAILED)
    assert "replay" in replay.content.decode()


def test_a_replayed_nonce_is_refused_in_soap11_with_the_wsse_faultcode(client, alice, alice_token):
    header = security(
        username_token(alice.username, alice_token, nonce=new_nonce(), created=instant())
    )
    body = envelope11(add_values(2, 3), header=header)

    assert result_of(post11(client, body)) == 5
    replay = post11(client, body)

    # SOAP 1.1 answers every fault with 500 (docs/soap.md); the code is WS-Security's own.
    assert replay.status_code == 500
    assert fault_codes(replay) == (FAILED, None)
    assert b">wsse:FailedAuthentication<" in replay.content


@override_settings(
    CACHES={"default": {"BACKEND": "core.store.DatabaseStore", "LOCATION": "core_store"}}
)
def test_a_replay_is_refused_through_the_database_store_that_workers_share(
    client, alice, alice_token
):
    from django.core.cache import caches

    from core.store import DatabaseStore

    header = security(
        username_token(alice.username, alice_token, nonce=new_nonce(), created=instant())
    )
    body = envelope(add_values(2, 3), header=header)

    assert result_of(post12(client, body)) == 5
    # Another worker has its own memory but the same database: only the shared entry remains.
    assert isinstance(caches["default"], DatabaseStore)
    assert_security_fault(post12(client, body), FAILED)


def test_a_nonce_is_remembered_whatever_else_changes(client, alice, alice_token, token_for):
    nonce = new_nonce()
    first = security(username_token(alice.username, alice_token, nonce=nonce, created=instant()))
    again = security(
        username_token(alice.username, token_for(alice), nonce=nonce, created=instant())
    )

    assert result_of(post_with_header(client, first)) == 5
    assert_security_fault(post_with_header(client, again, 7, 8), FAILED)


def test_a_wrong_token_does_not_use_up_the_nonce(client, alice, alice_token):
    nonce, created = new_nonce(), instant()
    wrong = security(username_token(alice.username, "wrong", nonce=nonce, created=created))
    right = security(username_token(alice.username, alice_token, nonce=nonce, created=created))

    assert_security_fault(post_with_header(client, wrong), FAILED)
    assert result_of(post_with_header(client, right)) == 5


@pytest.mark.parametrize(
    ("delta", "accepted"),
    [
        (timedelta(minutes=-4, seconds=-50), True),
        (timedelta(seconds=50), True),
        (timedelta(minutes=-5, seconds=-10), False),
        (timedelta(minutes=2), False),
    ],
    ids=["4m50s-ago", "50s-ahead", "5m10s-ago", "2m-ahead"],
)
def test_created_must_lie_within_five_minutes(client, alice, alice_token, delta, accepted):
    header = security(
        username_token(alice.username, alice_token, nonce=new_nonce(), created=instant(delta))
    )

    response = post_with_header(client, header)

    if accepted:
        assert result_of(response) == 5
    else:
        assert_security_fault(response, FAILED)


# --- credentials -----------------------------------------------------------------------------


def test_password_text_without_nonce_or_created_is_served(client, alice, alice_token):
    header = security(username_token(alice.username, alice_token, password_type=None))

    assert result_of(post_with_header(client, header)) == 5


def test_a_call_with_a_token_records_its_use_as_a_rest_write_does(client, alice, alice_token):
    from blogs.models import AccessToken

    header = security(username_token(alice.username, alice_token))

    assert result_of(post_with_header(client, header)) == 5
    assert AccessToken.objects.get().last_used_at is not None


def test_someone_elses_token_is_not_recorded_as_used(client, alice, bob, token_for):
    from blogs.models import AccessToken

    header = security(username_token(alice.username, token_for(bob)))

    assert_security_fault(post_with_header(client, header), FAILED)
    assert AccessToken.objects.get().last_used_at is None


def test_another_users_token_is_failed_authentication(client, alice, bob, token_for):
    header = security(username_token(alice.username, token_for(bob)))

    assert_security_fault(post_with_header(client, header), FAILED)


def test_a_revoked_token_is_failed_authentication(client, alice, alice_token):
    from blogs.models import AccessToken
    from blogs.services import token_revoke

    token_revoke(token=AccessToken.objects.matching(alice_token))
    header = security(username_token(alice.username, alice_token))

    assert_security_fault(post_with_header(client, header), FAILED)


def test_an_inactive_users_token_is_failed_authentication(client, alice, alice_token):
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    header = security(username_token(alice.username, alice_token))

    assert_security_fault(post_with_header(client, header), FAILED)


def test_without_a_security_header_the_request_is_served_by_default(client):
    assert result_of(post12(client, envelope(add_values(2, 3)))) == 5


@override_settings(SOAP_WSSE_REQUIRED=True)
def test_a_required_header_that_is_missing_is_failed_authentication(client):
    assert_security_fault(post12(client, envelope(add_values(2, 3))), FAILED)
    # A GET has no envelope to carry one.
    response = client.get(
        ENDPOINT, {"FirstValue": 2, "SecondValue": 3}, HTTP_ACCEPT="application/soap+xml"
    )
    assert_security_fault(response, FAILED)


@override_settings(SOAP_WSSE_REQUIRED=True)
def test_a_security_header_for_another_role_does_not_count(client, alice, alice_token):
    header = security(
        username_token(alice.username, alice_token),
        attributes=' env:role="http://example.org/some-intermediary"',
    )

    assert_security_fault(post_with_header(client, header), FAILED)


# --- mustUnderstand --------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["true", "1"])
def test_a_must_understand_security_header_is_understood(client, alice, alice_token, flag):
    header = security(
        username_token(alice.username, alice_token), attributes=f' env:mustUnderstand="{flag}"'
    )

    assert result_of(post_with_header(client, header)) == 5


def test_a_must_understand_security_header_is_understood_in_soap11(client, alice, alice_token):
    header = security(
        username_token(alice.username, alice_token), attributes=' env:mustUnderstand="1"'
    )

    assert result_of(post11(client, envelope11(add_values(2, 3), header=header))) == 5


def test_other_must_understand_blocks_are_still_not_understood(client, alice, alice_token):
    header = security(username_token(alice.username, alice_token)) + (
        '<x:Other xmlns:x="urn:other" env:mustUnderstand="true"/>'
    )

    response = post_with_header(client, header)

    assert response.status_code == 500
    assert fault_codes(response)[0] == f"{{{SOAP12_NS}}}MustUnderstand"


# --- hostile or unsupported headers ----------------------------------------------------------

HOSTILE = {
    "two-security-blocks": (
        lambda u, t: security(username_token(u, t)) + security(username_token(u, t)),
        INVALID,
    ),
    "two-username-tokens": (
        lambda u, t: security(username_token(u, t) + username_token(u, t)),
        INVALID,
    ),
    "no-username-token": (lambda u, t: security(""), INVALID),
    "missing-username": (lambda u, t: security(username_token(None, t)), INVALID),
    "two-usernames": (
        lambda u, t: security(username_token(u, t, extra=f"<wsse:Username>{u}</wsse:Username>")),
        INVALID,
    ),
    "missing-password": (lambda u, t: security(username_token(u, None)), FAILED),
    "empty-username": (lambda u, t: security(username_token("", t)), FAILED),
    "huge-username": (lambda u, t: security(username_token("u" * 20_000, t)), FAILED),
    "huge-password": (lambda u, t: security(username_token(u, "p" * 20_000)), FAILED),
    "password-with-elements": (
        lambda u, t: security(username_token(u, "<x:y xmlns:x='urn:x'/>")),
        INVALID,
    ),
    "unknown-password-type": (
        lambda u, t: security(username_token(u, t, password_type="urn:x#PasswordPlain")),
        UNSUPPORTED,
    ),
    "password-digest": (
        lambda u, t: security(
            username_token(
                u, t, password_type=PASSWORD_DIGEST, nonce=new_nonce(), created=instant()
            )
        ),
        UNSUPPORTED,
    ),
    "nonce-without-created": (
        lambda u, t: security(username_token(u, t, nonce=new_nonce())),
        INVALID,
    ),
    "nonce-not-base64": (
        lambda u, t: security(username_token(u, t, nonce="%%%", created=instant())),
        INVALID,
    ),
    "huge-nonce": (
        lambda u, t: security(username_token(u, t, nonce="A" * 10_000, created=instant())),
        INVALID,
    ),
    "created-not-a-date": (
        lambda u, t: security(username_token(u, t, created="yesterday")),
        INVALID,
    ),
    "created-without-zone": (
        lambda u, t: security(username_token(u, t, created=instant()[:-1])),
        INVALID,
    ),
    "unknown-element-in-token": (
        lambda u, t: security(username_token(u, t, extra="<wsse:Salt>x</wsse:Salt>")),
        INVALID,
    ),
    "signature": (
        lambda u, t: security(
            username_token(u, t) + '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/>'
        ),
        UNSUPPORTED,
    ),
    "text-in-security": (lambda u, t: security("hello" + username_token(u, t)), INVALID),
    "expired-timestamp": (
        lambda u, t: security(
            f"<wsu:Timestamp><wsu:Created>{instant(timedelta(hours=-2))}</wsu:Created>"
            f"<wsu:Expires>{instant(timedelta(hours=-1))}</wsu:Expires></wsu:Timestamp>"
            + username_token(u, t)
        ),
        f"{{{WSSE}}}MessageExpired",
    ),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_security_headers_are_sender_faults(client, alice, alice_token, case):
    make_header, subcode = HOSTILE[case]

    response = post_with_header(client, make_header(alice.username, alice_token))

    assert_security_fault(response, subcode)


def test_a_valid_timestamp_beside_the_token_is_accepted(client, alice, alice_token):
    timestamp = (
        f"<wsu:Timestamp><wsu:Created>{instant()}</wsu:Created>"
        f"<wsu:Expires>{instant(timedelta(minutes=10))}</wsu:Expires></wsu:Timestamp>"
    )
    header = security(timestamp + username_token(alice.username, alice_token))

    assert result_of(post_with_header(client, header)) == 5


# --- the policy in the WSDLs -----------------------------------------------------------------


def policies(document: etree._Element) -> dict[str, etree._Element]:
    return {p.get(f"{{{WSU}}}Id"): p for p in document.iterfind(f"{{{WSP}}}Policy")}


def referenced_policy(binding: etree._Element, document: etree._Element) -> etree._Element:
    (reference,) = binding.iterfind(f"{{{WSP}}}PolicyReference")
    uri = reference.get("URI")
    assert uri.startswith("#")
    return policies(document)[uri[1:]]


def supporting_tokens(policy: etree._Element) -> etree._Element:
    (tokens,) = policy.iterfind(f"{{{SP}}}SupportingTokens")
    username_token = tokens.find(f"{{{WSP}}}Policy/{{{SP}}}UsernameToken")
    assert username_token is not None
    assert username_token.find(f"{{{WSP}}}Policy/{{{SP}}}WssUsernameToken10") is not None
    # PasswordText: no sp:HashPassword, which would ask for a digest.
    assert not list(username_token.iter(f"{{{SP}}}HashPassword"))
    return tokens


@pytest.mark.parametrize(("required", "optional"), [(False, "true"), (True, None)])
def test_wsdl11_bindings_reference_the_username_token_policy(client, required, optional):
    with override_settings(SOAP_WSSE_REQUIRED=required):
        wsdl = etree.fromstring(client.get(f"{ENDPOINT}?wsdl").content)

    bindings = list(wsdl.iterfind(f"{{{WSDL}}}binding"))
    assert len(bindings) == 2
    for binding in bindings:
        tokens = supporting_tokens(referenced_policy(binding, wsdl))
        assert tokens.get(f"{{{WSP}}}Optional") == optional


@pytest.mark.parametrize(("required", "optional"), [(False, "true"), (True, None)])
def test_wsdl20_post_binding_references_the_username_token_policy(client, required, optional):
    with override_settings(SOAP_WSSE_REQUIRED=required):
        wsdl = etree.fromstring(client.get(f"{ENDPOINT}?wsdl2").content)

    bindings = {b.get("name"): b for b in wsdl.iterfind(f"{{{WSDL2}}}binding")}
    tokens = supporting_tokens(referenced_policy(bindings["CalculatorSoapBinding"], wsdl))
    assert tokens.get(f"{{{WSP}}}Optional") == optional
    # A GET carries no header, so the GET binding has no policy to meet.
    assert bindings["CalculatorSoapGetBinding"].find(f"{{{WSP}}}PolicyReference") is None


@override_settings(SOAP_WSSE_REQUIRED=True)
def test_zeep_loads_the_wsdl_with_a_required_policy(make_client):
    client = make_client()

    assert set(client.wsdl.services[SERVICE].ports) == set(PORTS)
