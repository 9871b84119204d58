"""A page of a collection: what a selector returns and every surface pages by (pageIndex from 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    total: int
    page_index: int
    page_size: int

    @property
    def total_pages(self) -> int:
        return -(-self.total // self.page_size)
