"""The development broker: kombu's `filesystem://` transport (a folder of message files, for
`make run` and `make serve-edge`), made safe against a message file read half-written
(docs/decisions/webhooks-development-broker.md). config/celery.py selects it for that URL.

kombu's own `Channel._put` creates the file under its final name and only then writes it, in one
write that it does not check for a short count: a worker polling the folder could take the file
in between (empty or cut), and a writer that died mid-write left it cut for good. The worker's
`_get` then failed to decode it, and the error left the consumer and ended the worker (issue 40).
Here, through the two methods a kombu virtual channel implements:

- `_put` writes the whole message under a hidden name and renames it into place (rename is atomic
  within a folder, POSIX `rename()`): a reader finds all of a message or nothing. What a writer
  that died leaves is a hidden `.part` file, which no reader takes.
- `_get` claims a file by renaming it (of two workers, one wins), and a file that is not a
  message (a damaged disk, or another writer's cut file) goes to `broken/` beside the messages
  with an error line in the log; the next one is read, and the worker goes on.

No fsync: a process that dies leaves what it wrote to the kernel, and a machine that loses its
power may leave an empty message, which `_get` then sets aside like any other broken file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

BROKEN = "broken"  # the subfolder of the messages that could not be read


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict, **kwargs: Any) -> None:
        # kombu's name: the milliseconds first, so that sorting the names is reading in order,
        # also beside messages written by kombu's own transport.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            # A buffered file writes all of it (the raw file's one write() may write less).
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.rename(partial, final)
        except OSError as error:  # a full disk, say: no part is left behind
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add a message to {self.data_folder_out}") from error

    def _get(self, queue: str) -> dict:
        folder = self.data_folder_in
        for name in sorted(os.listdir(folder)):
            if name.partition(".")[2] != f"{queue}.msg":
                continue
            taken = os.path.join(folder, f".{name}.taken-{uuid.uuid4()}")
            try:
                os.rename(os.path.join(folder, name), taken)
            except FileNotFoundError:
                continue  # another worker took it
            with open(taken, "rb") as file:
                payload = file.read()
            try:
                message = loads(bytes_to_str(payload))
                if not isinstance(message, dict):
                    raise ValueError(f"a JSON {type(message).__name__}, not an object")
            except ValueError as error:  # JSONDecodeError and UnicodeDecodeError among them
                os.makedirs(os.path.join(folder, BROKEN), exist_ok=True)
                aside = os.path.join(folder, BROKEN, name)
                os.rename(taken, aside)
                logger.error(
                    "broker folder: %s is no message (%d bytes: %s); moved to %s, reading on",
                    name,
                    len(payload),
                    error,
                    aside,
                )
                continue
            os.remove(taken)
            return message
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
