"""The Star Wars data's revision: whoever writes the data bumps it (today load_starwars, the
only writer), so that every process's in-memory catalogue (graphapi.catalogue) follows."""

from __future__ import annotations

import uuid

from django.db import DEFAULT_DB_ALIAS, transaction

from graphapi import catalogue
from graphapi.models import StarWarsRevision


def starwars_revision_bump(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """A new revision token, written in the caller's transaction: other processes see it once
    that commits and rebuild their catalogue then; this process drops its own at the commit."""
    with transaction.atomic(using=using):
        token = uuid.uuid4()
        revisions = StarWarsRevision.objects.using(using)
        if not revisions.filter(pk=StarWarsRevision.SINGLETON_ID).update(token=token):
            # No row yet (a fresh database, or one emptied by flush). A concurrent creator
            # wins the race harmlessly: its token is new too.
            revisions.get_or_create(pk=StarWarsRevision.SINGLETON_ID, defaults={"token": token})
        transaction.on_commit(catalogue.forget, using=using)
