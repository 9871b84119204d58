"""The table of Django's database cache, the shared store for idempotency keys and rate limits
when no Redis is configured (settings.CACHE_TABLE). Created whatever the cache setting is today,
so that a deployment can drop REDIS_URL later without another step."""

from django.conf import settings
from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # createcachetable's own method: the table Django's DatabaseCache expects, left alone when
    # it exists already.
    command = CreateCacheTable()
    command.verbosity = 0  # what handle() sets from its options
    command.create_table(schema_editor.connection.alias, settings.CACHE_TABLE, False)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("articles", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, drop_cache_table, elidable=False)]
