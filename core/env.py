"""Typed readers for settings taken from the environment.

Each helper fails loudly (ImproperlyConfigured) on a value it cannot read, so that a typo in a
deployment stops the process at start-up instead of running with a silent default.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false, 1/0, yes/no), not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return value


def env_rate(name: str, default: str) -> str:
    """A rate in DRF's syntax: '<count>/<period>' with period s, sec, m, min, h, hour, d, day."""
    raw = os.environ.get(name, default).strip()
    count, _, period = raw.partition("/")
    if not count.isdigit() or not period or period[0] not in "smhd":
        raise ImproperlyConfigured(f"{name} must look like '600/min', not {raw!r}")
    return raw


def env_origin(name: str, default: str) -> str:
    """An origin, `scheme://host[:port]` over http or https, without a trailing slash."""
    raw = (os.environ.get(name) or default).strip().rstrip("/")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        raise ImproperlyConfigured(
            f"{name} must be an origin such as https://blog.example.org, not {raw!r}"
        )
    return raw


def load_env_file(path: Path) -> None:
    """Take each `NAME=value` line of `path`, when the file exists, as an environment default
    (docs/decisions/development-env-file.md). No quotes, `export` or `$` expansion; any other
    line stops the process, as a bad value does."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.partition("=")
        name = name.strip()
        if not equals or not name.isidentifier():
            raise ImproperlyConfigured(f"{path}, line {number}: expected NAME=value, not {raw!r}")
        os.environ.setdefault(name, value.strip())
