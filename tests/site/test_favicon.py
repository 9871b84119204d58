"""/favicon.ico, which browsers ask for on every site whatever its pages link."""

from __future__ import annotations

import struct

import pytest

from tests.site.conftest import BROWSER_ACCEPT, links_of


def test_the_favicon_is_an_icon_served_at_the_root(client, db):
    response = client.get("/favicon.ico", headers={"Accept": "image/avif,image/webp,*/*"})

    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    icon = b"".join(response.streaming_content)
    reserved, kind, count = struct.unpack("<HHH", icon[:6])
    assert (reserved, kind) == (0, 1)  # an ICO file: reserved 0, type 1 (icon)
    assert count >= 1


def test_the_favicon_may_be_cached(client, db):
    response = client.get("/favicon.ico")

    assert "max-age" in response["Cache-Control"]


@pytest.mark.parametrize("path", ["/", "/docs/rels/", "/docs/rels/blog", "/nowhere"])
def test_the_sites_pages_name_it(client, db, path):
    response = client.get(path, headers={"Accept": BROWSER_ACCEPT})

    assert ("icon", "/favicon.ico") in links_of(response).links
