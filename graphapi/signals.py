"""Every ORM write to films, planets, people or their links bumps the Star Wars revision.

loaddata (so load_starwars) sends these signals too, raw saves included. Raw SQL does not:
whoever writes the tables that way must call graphapi.services.starwars_revision_bump.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import m2m_changed, post_delete, post_save

from graphapi.models import Film, Person, Planet
from graphapi.services import starwars_revision_bump

_LINK_CHANGES = frozenset({"post_add", "post_remove", "post_clear"})


def _row_changed(sender: type, using: str, **kwargs: Any) -> None:
    starwars_revision_bump(using=using)


def _links_changed(sender: type, action: str, using: str, **kwargs: Any) -> None:
    if action in _LINK_CHANGES:
        starwars_revision_bump(using=using)


def connect() -> None:
    for model in (Film, Planet, Person):
        post_save.connect(_row_changed, sender=model, dispatch_uid=f"starwars-save-{model}")
        post_delete.connect(_row_changed, sender=model, dispatch_uid=f"starwars-delete-{model}")
    for through in (Film.planets.through, Film.characters.through, Person.friends.through):
        m2m_changed.connect(_links_changed, sender=through, dispatch_uid=f"starwars-{through}")
