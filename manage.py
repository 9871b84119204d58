#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys
from pathlib import Path


def main() -> None:
    from core.env import load_env_file

    # The checkout's `.env`, which `make run` writes (DEBUG on, a generated SECRET_KEY), so that
    # `python manage.py issue_token bob` runs as the docs show. The environment wins over it;
    # gunicorn (config/wsgi.py) never reads it: production still needs its own SECRET_KEY.
    load_env_file(Path(__file__).resolve().parent / ".env")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
