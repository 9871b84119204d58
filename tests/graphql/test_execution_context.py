"""graphapi.execution.BudgetedExecutionContext answers exactly as graphql-core's own context.

It re-states graphql-core 3.2's execute_fields, execute_field and complete_value without the
branches for awaitable values (the schema is synchronous), with the time budget checked first.
The same documents executed with both contexts must give the same data and the same errors:
an upgrade of graphql-core that changes what those methods do fails here.
"""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from graphql import ExecutionContext, execute, get_introspection_query, parse

from articles import services as article_services
from graphapi.execution import BudgetedExecutionContext
from graphapi.schema import schema

pytestmark = pytest.mark.usefixtures("starwars")

DOCUMENTS = {
    "introspection": (get_introspection_query(descriptions=True), None),
    "film with planets and residents": (
        '{ film(id: "6") { title episodeId releaseDate planets { name residents { name } } } }',
        None,
    ),
    "friends three levels": (
        "{ person(id: 1) { name homeworld { name } friends { name friends { name "
        "friends { name films { title } } } } } }",
        None,
    ),
    "unknown ids are null": ('{ person(id: "999999") { name } film(id: "x") { title } }', None),
    "aliases, typename, fragments, directives": (
        """query Q($id: ID!, $with: Boolean!) {
             a: planet(id: $id) { __typename ...P residents @include(if: $with) { name } }
             b: planet(id: "2") { name films @skip(if: $with) { title } }
           }
           fragment P on Planet { name climate population }""",
        {"id": "1", "with": True},
    ),
    "every list": ("{ allFilms { title characters { name } } allPlanets { name } }", None),
    "a variable that does not coerce": ("query Q($id: ID!) { person(id: $id) { name } }", {}),
    "blog and article": (
        "query B($b: ID!, $a: ID!) { blog(id: $b) { title } "
        "article(blogId: $b, id: $a) { title content blog { title } } }",
        "blog",
    ),
    "hello": ("{ hello }", None),
}


def run(context_class: type[ExecutionContext], document: str, variables: dict | None):
    request = RequestFactory().post("/graphql")
    result = execute(
        schema.graphql_schema,
        parse(document),
        context_value=request,
        variable_values=variables,
        execution_context_class=context_class,
    )
    return result.data, [error.formatted for error in result.errors or []]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_budgeted_context_answers_as_graphql_cores(name, blog, settings):
    settings.GRAPHQL_TIME_BUDGET_MS = 60_000
    document, variables = DOCUMENTS[name]
    if variables == "blog":
        article = article_services.article_create(blog=blog, title="T", content=None)
        variables = {"b": str(blog.pk), "a": str(article.pk)}
    ours = run(BudgetedExecutionContext, document, variables)
    theirs = run(ExecutionContext, document, variables)
    assert ours == theirs
    data, errors = ours
    if name == "a variable that does not coerce":
        assert data is None and errors
    else:
        assert data and not errors
