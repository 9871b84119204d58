"""The admin as a browser uses it, against a real server (through nginx or Varnish too): its
login form, its cookies, and a change form posted back. Standard library only; the `staff_editor`
fixture that logs in is in fixtures.py."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode

LOGIN = "/admin/login/"
EDITOR_PASSWORD = "editor-password"
_CSRF_FIELD = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


def csrf_token(page: bytes) -> str:
    """The CSRF token of a form the admin rendered."""
    return _CSRF_FIELD.search(page).group(1).decode()


class AdminBrowser:
    """A browser at one source address: it keeps its cookies and fills in the login form."""

    def __init__(self, port: int, address: str = "127.0.0.1") -> None:
        self.port, self.address = port, address
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: str = "", headers: dict | None = None):
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=10, source_address=(self.address, 0)
        )
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            connection.request(method, path, body=body or None, headers=headers)
            reply = connection.getresponse()
            content = reply.read()
        finally:
            connection.close()
        for cookie in reply.headers.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return reply.status, content

    def log_in(self, username: str, password: str, headers: dict | None = None) -> int:
        """The status of the form's POST: 302 logged in, 200 the form again, 429 locked out."""
        self.cookies.clear()
        status, page = self.request("GET", LOGIN, headers=headers)
        assert status == 200, page[:300]
        form = urlencode(
            {"csrfmiddlewaretoken": csrf_token(page), "username": username, "password": password}
            | {"next": "/admin/"}
        )
        status, _ = self.request(
            "POST",
            LOGIN,
            form,
            {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})},
        )
        return status

    def submit(self, path: str, fields: dict[str, str | list[str]]) -> tuple[int, bytes]:
        """GET the form at `path` (for its CSRF token), then POST `fields` to it, as the
        browser's Save button does; (status, body) of the POST (302 when saved)."""
        status, page = self.request("GET", path)
        assert status == 200, page[:300]
        form = urlencode({"csrfmiddlewaretoken": csrf_token(page), **fields}, doseq=True)
        return self.request(
            "POST", path, form, {"Content-Type": "application/x-www-form-urlencoded"}
        )
