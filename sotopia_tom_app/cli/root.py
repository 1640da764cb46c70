"""The options of ``sotopia-tom`` itself, before any command: ``--version``, and warnings shown."""

from __future__ import annotations

from typing import Annotated

import typer

from sotopia_tom_app.cli import errors as checks


def _print_version(value: bool) -> None:
    """Print the installed version and stop (an eager option: runs before anything else)."""
    if value:
        typer.echo(f"sotopia-tom {checks.installed_version()}")
        raise typer.Exit()


def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """Sotopia-ToM: privacy-aware multi-agent information sharing, as an RL environment."""
    checks.show_warnings()
