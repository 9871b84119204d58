"""The Star Wars films, planets and people of the public SWAPI data set.

Ids are SWAPI's own numbers (Luke Skywalker is person 1, film 1 is "A New Hope"), so that the
data reads the same as every SWAPI-based example. Scalar facts are kept as SWAPI states them:
strings such as "unknown" or "n/a" included, because the data set mixes them with numbers.
"""

from __future__ import annotations

import uuid

from django.db import models


class Planet(models.Model):
    name = models.CharField(max_length=100, unique=True)
    climate = models.CharField(max_length=100, blank=True, help_text="As SWAPI states it.")
    terrain = models.CharField(max_length=100, blank=True, help_text="As SWAPI states it.")
    population = models.CharField(
        max_length=30, blank=True, help_text="A number, or 'unknown' as SWAPI states it."
    )
    diameter = models.CharField(max_length=30, blank=True, help_text="Kilometres, or 'unknown'.")
    rotation_period = models.CharField(max_length=30, blank=True, help_text="Standard hours.")
    orbital_period = models.CharField(max_length=30, blank=True, help_text="Standard days.")
    gravity = models.CharField(max_length=60, blank=True, help_text="In standard G.")
    surface_water = models.CharField(max_length=30, blank=True, help_text="Percent of surface.")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Person(models.Model):
    name = models.CharField(max_length=100, unique=True)
    height = models.CharField(max_length=30, blank=True, help_text="Centimetres, or 'unknown'.")
    mass = models.CharField(max_length=30, blank=True, help_text="Kilograms, or 'unknown'.")
    hair_color = models.CharField(max_length=60, blank=True)
    skin_color = models.CharField(max_length=60, blank=True)
    eye_color = models.CharField(max_length=60, blank=True)
    birth_year = models.CharField(
        max_length=30, blank=True, help_text="BBY/ABY: before/after the Battle of Yavin."
    )
    gender = models.CharField(max_length=30, blank=True)
    homeworld = models.ForeignKey(
        Planet,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="residents",
        help_text="A planet's residents are exactly the people whose homeworld it is.",
    )
    friends = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="friend_of",
        help_text="One-way, as in the classic GraphQL Star Wars example.",
    )

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "people"

    def __str__(self) -> str:
        return self.name


class Film(models.Model):
    title = models.CharField(max_length=100, unique=True)
    episode_id = models.PositiveSmallIntegerField(unique=True)
    director = models.CharField(max_length=100)
    producer = models.CharField(max_length=200, blank=True)
    release_date = models.DateField()
    planets = models.ManyToManyField(Planet, blank=True, related_name="films")
    characters = models.ManyToManyField(Person, blank=True, related_name="films")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title


class StarWarsRevision(models.Model):
    """One row naming the version of the films, planets and people, replaced by every write to
    them (graphapi.services.starwars_revision_bump); docs/graphql.md says why a token."""

    SINGLETON_ID = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=SINGLETON_ID, editable=False)
    token = models.UUIDField(
        default=uuid.uuid4,
        help_text="Changes on every write to films, planets or people; never edit it by hand.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(id=1), name="graphapi_starwarsrevision_singleton"
            )
        ]

    def __str__(self) -> str:
        return f"Star Wars data revision {self.token}"
