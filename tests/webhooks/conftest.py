"""A receiving HTTP server on 127.0.0.1 with answers set by the test, and a blog with a webhook.

The receiver is real (a thread of this process listening on a free port): the sender connects,
writes and reads over TCP as it does in production."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth.models import Permission

from webhooks import services


@dataclass
class Answer:
    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    def __init__(self) -> None:
        self.answers: deque[Answer] = deque()
        self.received: list[Received] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                receiver.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                answer = receiver.answers.popleft() if receiver.answers else Answer()
                time.sleep(answer.delay)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                # The sender may stop reading (its limit, or its timeout).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(answer.body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks/in"

    def answer(self, *answers: Answer) -> None:
        self.answers.extend(answers)


@pytest.fixture
def receiver():
    receiver = Receiver()
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()


@pytest.fixture
def webhook(blog, alice, receiver):
    """A webhook of alice's blog to the receiver, for every event; `.plain_secret` is its secret."""
    subscription, secret = services.subscription_create(
        blog=blog, url=receiver.url, events=["*"], created_by=alice
    )
    subscription.plain_secret = secret
    return subscription


@pytest.fixture
def webhook_editor(editor):
    """The cast's editor with the webhook permissions, as seed_demo gives them."""
    editor.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="webhooks").exclude(
            codename__endswith="_event"
        )
    )
    return editor


@pytest.fixture
def api():
    from tests.rest.conftest import HalClient

    return HalClient()
