"""Django's database cache gave way to the platform's store (core 0001): its table goes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("articles", "0004_article_revisions"), ("core", "0001_store")]

    operations = [
        migrations.RunSQL("DROP TABLE IF EXISTS django_cache", migrations.RunSQL.noop),
    ]
