"""Load (or reload) the Star Wars films, planets and people shipped in graphapi/fixtures."""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from graphapi.models import Film, Person, Planet
from graphapi.services import starwars_revision_bump


class Command(BaseCommand):
    help = "Load the Star Wars data set (6 films, 60 planets, 82 people). Safe to run again."

    def handle(self, *args, **options) -> None:
        # loaddata writes every row by its primary key, replacing the many-to-many links, so a
        # second run leaves the same data and no duplicates. The revision moves in the same
        # transaction, so every process serves the loaded data within
        # GRAPHQL_STARWARS_REVALIDATE_SECONDS.
        with transaction.atomic():
            call_command("loaddata", "starwars", app_label="graphapi", verbosity=0)
            starwars_revision_bump()
        self.stdout.write(
            f"Star Wars data loaded: {Film.objects.count()} films, "
            f"{Planet.objects.count()} planets, {Person.objects.count()} people"
        )
