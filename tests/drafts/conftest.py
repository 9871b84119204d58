"""What the drafts' tests share: the HAL client, alice's token, the scheduler's messages."""

from __future__ import annotations

import pytest

from drafts import scheduling
from tests.rest.conftest import HalClient


@pytest.fixture
def sent(monkeypatch) -> list[tuple]:
    """The messages the scheduler hands the broker: (task name, calls, countdown)."""
    messages: list[tuple] = []

    def send(task_name, calls, *, countdown=0, what=None):
        messages.append((task_name, list(calls), countdown))
        return len(calls)

    monkeypatch.setattr(scheduling.broker, "send", send)
    return messages


@pytest.fixture
def api() -> HalClient:
    return HalClient()


@pytest.fixture
def alice_token(alice, token_for) -> str:
    return token_for(alice)
