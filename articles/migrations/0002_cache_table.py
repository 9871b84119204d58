"""Created the table of Django's database cache, which the platform's store replaced (core 0001,
articles 0005): kept empty so that the migration graph stays as deployments recorded it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("articles", "0001_initial")]

    operations = []
