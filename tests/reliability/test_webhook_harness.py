"""The webhook harness itself (tests/support/webhooks.py): a receiver that answers from its
script and notices a sender that died while it held the request, and a broker that stops and
comes back on the same port."""

from __future__ import annotations

import socket
import time

import pytest

from tests.support.groups import group_members
from tests.support.servers import http_request
from tests.support.webhooks import Hold, Receiver, RedisServer, peer_closed


def test_the_receiver_answers_from_its_script_then_its_default_and_records_everything():
    with Receiver() as receiver:
        receiver.answer(500, 429)
        statuses = [
            http_request(
                receiver.port, "POST", "/hook", body={"n": n}, headers={"webhook-id": f"msg_{n}"}
            ).status
            for n in range(3)
        ]
        assert statuses == [500, 429, 200]
        seen = receiver.received()
        assert [r.webhook_id for r in seen] == ["msg_0", "msg_1", "msg_2"]
        assert [r.status for r in seen] == [500, 429, 200]
        assert seen[2].body == b'{"n": 2}'
        assert seen[2].headers["content-type"] == "application/json"


def test_the_receiver_verifies_as_requests_arrive_and_records_a_refusal():
    with Receiver() as receiver:

        def verify(body: bytes, headers: dict[str, str]) -> str:
            if headers.get("webhook-signature") != "good":
                raise ValueError("bad signature")
            return body.decode()

        receiver.verify = verify
        http_request(receiver.port, "POST", "/", body="a", headers={"webhook-signature": "good"})
        http_request(receiver.port, "POST", "/", body="b", headers={"webhook-signature": "bad"})
        first, second = receiver.received()
        assert first.verified == "a"
        assert isinstance(second.verified, ValueError)


def test_a_held_request_whose_sender_died_is_recorded_as_not_answered():
    with Receiver() as receiver:
        hold = Hold(status=200)
        receiver.answer(hold)
        sender = socket.create_connection(("127.0.0.1", receiver.port))
        sender.sendall(b"POST /hook HTTP/1.1\r\nHost: x\r\nwebhook-id: msg_1\r\n")
        sender.sendall(b"Content-Length: 2\r\n\r\n{}")
        assert hold.arrived.wait(5)
        sender.close()  # the worker is killed while the receiver holds its request
        hold.release()
        receiver.wait_for(lambda seen: seen, timeout=5, what="the request")
        time.sleep(0.3)
        assert receiver.received()[0].status is None
        # The next request is answered normally.
        assert http_request(receiver.port, "POST", "/hook", body="{}").status == 200


def test_peer_closed_is_false_while_the_peer_is_connected():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
        assert not peer_closed(server)
        client.close()
        time.sleep(0.05)
        assert peer_closed(server)
        server.close()


@pytest.mark.servers
def test_the_broker_stops_and_comes_back_on_the_same_port_empty(broker: RedisServer):
    import redis

    client = redis.Redis.from_url(broker.url(), socket_timeout=2)
    client.set("queued", "1")
    broker.stop()
    assert not broker.ping()
    with pytest.raises(redis.exceptions.ConnectionError):
        client.get("queued")
    broker.start()
    assert broker.ping()
    # Nothing persisted: what was queued is gone, as when a broker crashes.
    assert client.get("queued") is None


@pytest.mark.servers
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_is_killed_with_its_pool_and_starts_again(start_celery):
    worker = start_celery("worker", "--concurrency=2")
    group = worker.process.pid
    assert len(group_members(group)) >= 3  # the main process and its two pool processes
    worker.kill()
    assert group_members(group) == set()
    worker.start()
    assert worker.process.poll() is None
    assert len(group_members(worker.process.pid)) >= 3
