"""Parsed and validated documents, kept per process for the documents clients repeat.

Parsing and validating is about a quarter of the CPU of a typical query. Keyed by the text and
the settings the rules read, so a changed limit never answers from an old verdict; refused and
long documents are not kept, so an attacker's variations cannot fill it (a few MB at worst).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from django.conf import settings
from graphql import DocumentNode, GraphQLError, GraphQLSchema, ValidationRule, parse, validate

from graphapi.validation import name_the_limits, without_repeated_leaf_fields

_CACHED_DOCUMENTS = 64
_CACHEABLE_LENGTH = 2000


class InvalidDocument(Exception):
    """The document did not parse (`document` is None) or failed validation."""

    def __init__(self, errors: list[GraphQLError], document: DocumentNode | None) -> None:
        super().__init__(errors)
        self.errors = errors
        self.document = document


def valid_document(
    schema: GraphQLSchema, query: str, rules: Sequence[type[ValidationRule]]
) -> DocumentNode:
    """The parsed document, if it parses and passes `rules`; InvalidDocument otherwise."""
    rule_settings = (
        settings.GRAPHQL_MAX_TOKENS,
        settings.GRAPHQL_MAX_DEPTH,
        settings.GRAPHQL_MAX_ALIASES,
        settings.GRAPHQL_INTROSPECTION,
    )
    if len(query) > _CACHEABLE_LENGTH:
        return _parse_and_validate(schema, query, rules, rule_settings)
    return _cached(schema, query, tuple(rules), rule_settings)


def _parse_and_validate(
    schema: GraphQLSchema,
    query: str,
    rules: Sequence[type[ValidationRule]],
    rule_settings: tuple[object, ...],
) -> DocumentNode:
    try:
        # The token limit is enforced here too: "Document contains more than N tokens."
        document = parse(query, max_tokens=settings.GRAPHQL_MAX_TOKENS)
    except GraphQLError as error:
        raise InvalidDocument([error], None) from None
    document = without_repeated_leaf_fields(document)
    errors = name_the_limits(validate(schema, document, rules))
    if errors:
        raise InvalidDocument(errors, document)
    return document


# lru_cache keeps only what returned: refused documents raise and are not cached.
_cached = lru_cache(maxsize=_CACHED_DOCUMENTS)(_parse_and_validate)
