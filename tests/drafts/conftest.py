"""What the drafts' tests share: the HAL client, alice's token, the scheduler's messages."""

from __future__ import annotations

import pytest

from drafts import scheduling

# The REST tests' HAL client and alice's token, the same fixtures, not copies.
from tests.rest.conftest import alice_token, api  # noqa: F401


@pytest.fixture
def sent(monkeypatch) -> list[tuple]:
    """The messages the scheduler hands the broker: (task name, calls, countdown)."""
    messages: list[tuple] = []

    def send(task_name, calls, *, countdown=0, what=None):
        messages.append((task_name, list(calls), countdown))
        return len(calls)

    monkeypatch.setattr(scheduling.broker, "send", send)
    return messages
