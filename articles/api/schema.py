"""OpenAPI (drf-spectacular) additions: only the canonical /api/v1.2/ paths are described."""

from __future__ import annotations

from typing import Any


def only_canonical_paths(endpoints: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """PREPROCESSING_HOOKS: the /api/ mount is the same API; describe it once, canonically."""
    return [endpoint for endpoint in endpoints if endpoint[0].startswith("/api/v1.2/")]
