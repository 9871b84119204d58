"""Every type, field and argument of the schema says what it is, as GraphiQL's docs show it."""

from __future__ import annotations

DESCRIPTIONS = """
{
  __schema {
    types {
      name
      description
      fields { name description args { name description } }
    }
  }
}
"""

OWN_TYPES = {"Query", "Person", "Film", "Planet", "Blog", "Article"}


def test_every_type_field_and_argument_of_the_schema_has_a_description(gql, db):
    schema = gql.data(DESCRIPTIONS)["__schema"]
    # The introspection types (__Schema, __Type ...) are graphql-core's, not the schema's.
    types = [t for t in schema["types"] if not t["name"].startswith("__")]

    assert {t["name"] for t in types} >= OWN_TYPES
    undescribed = []
    for graphql_type in types:
        name = graphql_type["name"]
        if not graphql_type["description"]:
            undescribed.append(name)
        for field in graphql_type["fields"] or []:
            if not field["description"]:
                undescribed.append(f"{name}.{field['name']}")
            undescribed.extend(
                f"{name}.{field['name']}({arg['name']})"
                for arg in field["args"]
                if not arg["description"]
            )
    assert undescribed == []
