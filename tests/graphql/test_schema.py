"""The schema says exactly what the contract says: names and nullability, read by introspection."""

from __future__ import annotations

from typing import Any

TYPE_FIELDS = """
query ($name: String!) {
  __type(name: $name) {
    fields {
      name
      type { kind name ofType { kind name ofType { kind name } } }
      args { name type { kind name ofType { kind name } } }
    }
  }
}
"""
MUTATION_TYPE = "{ __schema { mutationType { name } } }"

CONTRACT_FIELDS = {
    "Query": {
        "hello": "String",
        "person": "Person",
        "film": "Film",
        "planet": "Planet",
        "allFilms": "[Film]",
        "allPlanets": "[Planet]",
        "allPeople": "[Person]",
        "blog": "Blog",
        "article": "Article",
    },
    "Person": {
        "id": "ID",
        "name": "String",
        "friends": "[Person]",
        "homeworld": "Planet",
        "films": "[Film]",
    },
    "Film": {
        "id": "ID",
        "title": "String",
        "episodeId": "Int",
        "director": "String",
        "releaseDate": "String",
        "planets": "[Planet]",
        "characters": "[Person]",
    },
    "Planet": {
        "id": "ID",
        "name": "String",
        "climate": "String",
        "terrain": "String",
        "population": "String",
        "residents": "[Person]",
        "films": "[Film]",
    },
}


def type_string(ref: dict[str, Any]) -> str:
    """SDL notation of an introspected type reference: [Film], ID!, ..."""
    if ref["kind"] == "NON_NULL":
        return type_string(ref["ofType"]) + "!"
    if ref["kind"] == "LIST":
        return "[" + type_string(ref["ofType"]) + "]"
    return ref["name"]


def introspect(gql, type_name: str) -> dict[str, dict[str, Any]]:
    fields = gql.data(TYPE_FIELDS, {"name": type_name})["__type"]["fields"]
    return {field["name"]: field for field in fields}


def test_every_contract_field_has_its_exact_type(gql):
    for type_name, expected in CONTRACT_FIELDS.items():
        fields = introspect(gql, type_name)
        for field_name, sdl in expected.items():
            assert type_string(fields[field_name]["type"]) == sdl, (type_name, field_name)


def test_query_film_and_planet_have_no_fields_beyond_the_contract(gql):
    for type_name in ("Query", "Film", "Planet"):
        assert set(introspect(gql, type_name)) == set(CONTRACT_FIELDS[type_name])


def test_person_adds_only_nullable_scalar_facts(gql):
    fields = introspect(gql, "Person")
    extra = set(fields) - set(CONTRACT_FIELDS["Person"])
    assert extra == {"height", "mass", "hairColor", "skinColor", "eyeColor", "birthYear", "gender"}
    assert {type_string(fields[name]["type"]) for name in extra} == {"String"}


def test_the_lookups_take_one_required_id(gql):
    fields = introspect(gql, "Query")
    for field_name in ("person", "film", "planet", "blog"):
        args = fields[field_name]["args"]
        assert [(arg["name"], type_string(arg["type"])) for arg in args] == [("id", "ID!")]
    args = fields["article"]["args"]
    assert [(arg["name"], type_string(arg["type"])) for arg in args] == [
        ("blogId", "ID!"),
        ("id", "ID!"),
    ]


def test_blogs_and_articles_are_read_only_views_of_the_rest_data(gql):
    assert {
        name: type_string(field["type"]) for name, field in introspect(gql, "Blog").items()
    } == {
        "id": "ID",
        "title": "String",
        "description": "String",
        "articles": "ArticlePage",
        "tags": "[Tag]",
    }
    article = {
        name: type_string(field["type"]) for name, field in introspect(gql, "Article").items()
    }
    assert article == {
        "id": "ID",
        "title": "String",
        "content": "String",
        "contentHtml": "String",
        "excerpt": "String",
        "blog": "Blog",
        "slug": "String",
        "publishedAt": "DateTime",
        "tags": "[String]",
        "contentFormat": "String",
        "revisions": "[Revision]",
    }
    revision = {
        name: type_string(field["type"]) for name, field in introspect(gql, "Revision").items()
    }
    assert revision == {
        "revision": "Int",
        "title": "String",
        "content": "String",
        "articleEtag": "String",
        "replacedAt": "DateTime",
        "replacedBy": "String",
    }


def test_the_schema_has_no_mutations(gql):
    assert gql.data(MUTATION_TYPE)["__schema"]["mutationType"] is None
