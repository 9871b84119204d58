from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser


class OperatorCommand(BaseCommand):
    """A command whose bad arguments give one `CommandError: ...` line on stderr and a non-zero
    exit code, not argparse's usage block or (raised while parsing) a traceback."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.called_from_command_line = False  # errors raise CommandError instead of exiting
        return parser

    def run_from_argv(self, argv: list[str]) -> None:
        try:
            super().run_from_argv(argv)
        except CommandError as error:
            self.stderr.write(f"CommandError: {error}")
            sys.exit(error.returncode)
