"""Serializer fields the REST resources share."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else: DRF's CharField would turn 5 or true into "5", "True"."""

    default_error_messages = {
        "not_a_string": "Must be a string.",
        "unencodable": "Must be valid Unicode text (no lone surrogates).",
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string")
        try:
            # A lone surrogate from a JSON \ud800 escape cannot be stored as UTF-8.
            data.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("unencodable")
        return super().to_internal_value(data)
