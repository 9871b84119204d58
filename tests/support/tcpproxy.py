"""A TCP proxy on loopback whose link to the real server a test can cut and restore.

The service is pointed at the proxy instead of PostgreSQL or Redis; cutting the proxy is what a
network partition or a crashed database looks like from the service (every open connection is
reset, every new one is refused), without ever stopping the machine's shared servers.

Standard library only, one thread per direction of each connection: a test drives a few dozen
connections at most.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator

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
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
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

    def close(self) -> None:
        self._closed = True
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
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(_BUFFER):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            # One side finished or failed: the pair is done (PostgreSQL and Redis protocols do
            # not use half-closed connections).
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()
