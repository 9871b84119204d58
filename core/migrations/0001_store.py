from django.db import migrations, models


def unlogged(apps, schema_editor):
    # PostgreSQL: a store write then waits for no WAL flush and is not replicated; after a crash
    # the table is empty, which a cache may be (docs/decisions/shared-cache-without-redis.md).
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE core_store SET UNLOGGED")


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="StoreEntry",
            fields=[
                ("cache_key", models.TextField(primary_key=True, serialize=False)),
                ("value", models.BinaryField(null=True)),
                ("number", models.BigIntegerField(null=True)),
                ("expires", models.FloatField(db_index=True)),
            ],
            options={"db_table": "core_store"},
        ),
        migrations.RunPython(unlogged, migrations.RunPython.noop, elidable=False),
    ]
