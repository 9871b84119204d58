"""A TCP proxy on loopback whose link to the real server a test can cut and restore, or hold.

The service is pointed at the proxy instead of PostgreSQL or Redis; cutting the proxy is what a
network partition or a crashed database looks like from the service (every open connection is
reset, every new one is refused), without ever stopping the machine's shared servers. Holding it
keeps what the server sends until released: an answer the server built at one moment reaches
its client at a later one, as over a slow link.

Standard library only, one thread per direction of each connection: a test drives a few dozen
connections at most.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Iterator

_BUFFER = 64 * 1024


def _reset(sock: socket.socket) -> None:
    """Close with an RST rather than a FIN: the peer sees 'connection reset', as in a crash."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


class FaultProxy:
    """Forwards 127.0.0.1:<port> to `upstream`; `cut()` breaks the link, `restore()` mends it."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        # Reentrant: release() ends the connections the server closed while held.
        self._lock = threading.RLock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        self._holding = False
        # What the server sent while held, in order: chunks to send on, and closes to make.
        self._held: list[Callable[[], None]] = []
        self._held_bytes = 0
        self.accepted = 0
        self.refused = 0
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True)
        self._acceptor.start()

    # --- what tests call ----------------------------------------------------------------------

    @property
    def is_cut(self) -> bool:
        return self._cut

    def cut(self) -> None:
        """Reset every open connection and refuse new ones until `restore()`."""
        with self._lock:
            self._cut = True
            doomed, self._open = self._open, set()
        for sock in doomed:
            _reset(sock)

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def hold(self) -> None:
        """Keep what the server sends, on every connection, until `release()` (a server that
        closes a connection meanwhile closes it after); what clients send still goes through."""
        with self._lock:
            self._holding = True

    def release(self) -> None:
        """Send what was held, in order, and stop holding."""
        with self._lock:
            self._holding = False
            held, self._held, self._held_bytes = self._held, [], 0
            for step in held:
                with contextlib.suppress(OSError):
                    step()

    @property
    def held_bytes(self) -> int:
        """How many bytes the server sent that are held now."""
        with self._lock:
            return self._held_bytes

    def close(self) -> None:
        self._closed = True
        self.release()
        self.cut()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._acceptor.join(timeout=2)

    @contextlib.contextmanager
    def outage(self) -> Iterator[FaultProxy]:
        self.cut()
        try:
            yield self
        finally:
            self.restore()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the forwarding -----------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._cut:
                self.refused += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                _reset(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._cut:
                    _reset(client)
                    _reset(upstream)
                    continue
                self._open.update((client, upstream))
                self.accepted += 1
            for source, sink, from_server in ((client, upstream, False), (upstream, client, True)):
                threading.Thread(
                    target=self._pump, args=(source, sink, from_server), daemon=True
                ).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_server: bool) -> None:
        try:
            while chunk := source.recv(_BUFFER):
                if from_server and self._held_back(
                    lambda chunk=chunk: sink.sendall(chunk), len(chunk)
                ):
                    continue
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            if not (from_server and self._held_back(lambda: self._end(source, sink))):
                self._end(source, sink)

    def _held_back(self, step: Callable[[], None], size: int = 0) -> bool:
        """While holding: `step` (sending `size` bytes) kept for `release()`, True; otherwise
        False."""
        with self._lock:
            if self._holding:
                self._held.append(step)
                self._held_bytes += size
            return self._holding

    def _end(self, source: socket.socket, sink: socket.socket) -> None:
        # One side finished or failed: the pair is done (PostgreSQL and Redis protocols do not
        # use half-closed connections).
        with self._lock:
            self._open.discard(source)
            self._open.discard(sink)
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()
