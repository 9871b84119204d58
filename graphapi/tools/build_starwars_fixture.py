"""Build graphapi/fixtures/starwars.json from the SWAPI data in the npm package swapi-graphql.

Usage (the package is unpacked, never installed):
    cd /tmp && npm pack swapi-graphql@0.0.6 && tar xzf swapi-graphql-0.0.6.tgz
    python graphapi/tools/build_starwars_fixture.py \
        /tmp/package/lib/api/cachedData/cache.js graphapi/fixtures/starwars.json

cache.js maps each SWAPI URL to that resource's JSON text; docs/graphql.md ("The data and its
origin") lists the defects repaired here.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

_ENTITY_URL = re.compile(r"^https?://swapi\.co/api/(films|planets|people)/(\d+)/$")

# The friendships of the classic GraphQL Star Wars example (one-way, as there), with that
# example's characters mapped onto their SWAPI ids.
LUKE, C3PO, R2D2, VADER, LEIA, TARKIN, HAN = 1, 2, 3, 4, 5, 12, 14
FRIENDS: dict[int, list[int]] = {
    LUKE: [HAN, LEIA, C3PO, R2D2],
    VADER: [TARKIN],
    HAN: [LUKE, LEIA, R2D2],
    LEIA: [LUKE, HAN, C3PO, R2D2],
    TARKIN: [VADER],
    C3PO: [LUKE, HAN, LEIA, R2D2],
    R2D2: [LUKE, HAN, LEIA],
}

PLANET_FACTS = [
    "name",
    "climate",
    "terrain",
    "population",
    "diameter",
    "rotation_period",
    "orbital_period",
    "gravity",
    "surface_water",
]
PERSON_FACTS = [
    "name",
    "height",
    "mass",
    "hair_color",
    "skin_color",
    "eye_color",
    "birth_year",
    "gender",
]
FILM_FACTS = ["title", "episode_id", "director", "producer", "release_date"]


def read_cache(path: Path) -> dict[str, dict[int, dict]]:
    text = path.read_text(encoding="utf-8")
    start = text.index("var data=") + len("var data=")
    end = text.rindex(";exports.default")
    raw: dict[str, str] = json.loads(text[start:end])
    entities: dict[str, dict[int, dict]] = {"films": {}, "planets": {}, "people": {}}
    for url, body in raw.items():
        match = _ENTITY_URL.match(url)
        if match:
            entities[match.group(1)][int(match.group(2))] = json.loads(body)
    return entities


def url_id(url: str) -> int:
    return int(url.rstrip("/").rsplit("/", 1)[1])


def unique_ids(urls: list[str]) -> list[int]:
    return sorted({url_id(url) for url in urls})


def build_fixture(entities: dict[str, dict[int, dict]]) -> list[dict]:
    planets, people, films = entities["planets"], entities["people"], entities["films"]
    rows: list[dict] = []
    for pk, planet in sorted(planets.items()):
        fields = {name: planet[name] for name in PLANET_FACTS}
        rows.append({"model": "graphapi.planet", "pk": pk, "fields": fields})
    for pk, person in sorted(people.items()):
        fields = {name: person[name] for name in PERSON_FACTS}
        fields["homeworld"] = url_id(person["homeworld"]) if person.get("homeworld") else None
        fields["friends"] = FRIENDS.get(pk, [])
        rows.append({"model": "graphapi.person", "pk": pk, "fields": fields})
    for pk, film in sorted(films.items()):
        fields = {name: film[name] for name in FILM_FACTS}
        fields["planets"] = unique_ids(film["planets"])
        fields["characters"] = unique_ids(film["characters"])
        rows.append({"model": "graphapi.film", "pk": pk, "fields": fields})
    check(rows)
    return rows


def check(rows: list[dict]) -> None:
    """Refuse to write a fixture that breaks what the contract states about the data."""
    by_model: dict[str, dict[int, dict]] = {}
    for row in rows:
        by_model.setdefault(row["model"], {})[row["pk"]] = row["fields"]
    counts = {model: len(items) for model, items in by_model.items()}
    expected = {"graphapi.film": 6, "graphapi.planet": 60, "graphapi.person": 82}
    if counts != expected:
        raise SystemExit(f"unexpected counts {counts}, expected {expected}")
    people = by_model["graphapi.person"]
    names = {pk: fields["name"] for pk, fields in people.items()}
    expected_names = {1: "Luke Skywalker", 2: "C-3PO", 3: "R2-D2", 4: "Darth Vader"}
    expected_names |= {5: "Leia Organa", 12: "Wilhuff Tarkin", 14: "Han Solo"}
    for pk, name in expected_names.items():
        if names.get(pk) != name:
            raise SystemExit(f"person {pk} is {names.get(pk)!r}, expected {name!r}")
    for fields in people.values():
        if fields["homeworld"] not in by_model["graphapi.planet"]:
            raise SystemExit(f"{fields['name']} has an unknown homeworld")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache_js", type=Path, help="lib/api/cachedData/cache.js of swapi-graphql")
    parser.add_argument("output", type=Path, help="the fixture to write")
    args = parser.parse_args()
    rows = build_fixture(read_cache(args.cache_js))
    args.output.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
