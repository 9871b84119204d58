"""The Star Wars data's revision: whoever writes the data bumps it (today load_starwars, the
only writer), so that every process's in-memory catalogue (graphapi.catalogue) follows."""

from __future__ import annotations

import uuid

from django.db import transaction

from graphapi import catalogue
from graphapi.models import StarWarsRevision


@transaction.atomic
def starwars_revision_bump() -> None:
    """A new revision token, written in the caller's transaction: other processes see it once
    that commits and rebuild their catalogue then; this process drops its own at the commit."""
    token, pk = uuid.uuid4(), StarWarsRevision.SINGLETON_ID
    if not StarWarsRevision.objects.filter(pk=pk).update(token=token):
        # No row yet (a fresh database, or one emptied by flush). A concurrent creator
        # wins the race harmlessly: its token is new too.
        StarWarsRevision.objects.get_or_create(pk=pk, defaults={"token": token})
    transaction.on_commit(catalogue.forget)
