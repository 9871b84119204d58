"""The script that builds the shipped fixture from SWAPI's cache.js repairs the known defects.

The real cache.js is not shipped (it comes from the npm package swapi-graphql), so this test
writes one in its format from the shipped fixture, with the defects put back: doubled film
planets, wrong planet residents, opening crawls, list pages. The script must give back exactly
the shipped fixture.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from graphapi.tools.build_starwars_fixture import build_fixture, read_cache

FIXTURE = Path(settings.BASE_DIR) / "graphapi" / "fixtures" / "starwars.json"
KINDS = {"graphapi.film": "films", "graphapi.planet": "planets", "graphapi.person": "people"}


def url(kind: str, pk: int) -> str:
    return f"http://swapi.co/api/{kind}/{pk}/"


def defective_cache_js(rows: list[dict]) -> str:
    resources: dict[str, str] = {"http://swapi.co/api/films/": json.dumps({"count": 6})}
    for row in rows:
        kind, fields = KINDS[row["model"]], dict(row["fields"])
        if kind == "films":
            planets = [url("planets", pk) for pk in fields["planets"]]
            fields["planets"] = planets + planets
            fields["characters"] = [url("people", pk) for pk in fields["characters"]]
            fields["opening_crawl"] = "It is a period of civil war."
        elif kind == "planets":
            fields["residents"] = [url("people", 1)]
        else:
            fields["homeworld"] = url("planets", fields["homeworld"])
            del fields["friends"]
        fields["url"] = url(kind, row["pk"])
        resources[fields["url"]] = json.dumps(fields)
    return f"var data={json.dumps(resources)};exports.default=data;"


def test_the_builder_gives_back_the_shipped_fixture_from_defective_data(tmp_path):
    shipped = json.loads(FIXTURE.read_text(encoding="utf-8"))
    cache_js = tmp_path / "cache.js"
    cache_js.write_text(defective_cache_js(shipped), encoding="utf-8")
    assert build_fixture(read_cache(cache_js)) == shipped
