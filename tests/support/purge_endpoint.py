"""A stand-in for an edge cache's purge endpoint (Varnish's `PURGE /` with `xkey-softpurge`): a
real HTTP server on 127.0.0.1, a thread of the test's process (docs/decisions/edge-cache.md,
"Purges")."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Edge:
    """A stand-in for Varnish's purge endpoint: records each PURGE's path and keys."""

    def __init__(self, on_purge: Callable[[set[str]], None] | None = None) -> None:
        self.purges: list[tuple[str, set[str]]] = []
        self.status = 200
        # Called with each PURGE's keys before it is answered (and recorded).
        self.on_purge = on_purge
        self.server: ThreadingHTTPServer | None = None
        self.port = 0
        self.up()
        self.url = f"http://127.0.0.1:{self.port}"

    def up(self) -> None:
        edge = self

        class Handler(BaseHTTPRequestHandler):
            def do_PURGE(self) -> None:
                keys = set(self.headers.get("xkey-softpurge", "").split())
                if edge.on_purge is not None:
                    edge.on_purge(keys)
                edge.purges.append((self.path, keys))
                body = b"purged\n"
                self.send_response(edge.status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def down(self) -> None:
        """Refuse connections: nothing listens on the port any more."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def keys(self) -> list[set[str]]:
        return [keys for _, keys in self.purges]
