"""How the ``sotopia-tom`` command line fails: one ``error:`` line, never a traceback for a known error.

Usage errors (a bad option value, an unreadable scenario file, a results folder in use or of
another configuration) exit with status 2; runtime failures (the LLM server did not start, an
LLM endpoint failed for good) exit with status 1. Everything else is a bug and keeps its
traceback. Option values are checked here before any server starts or any file is written.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from typer._click import exceptions as clickx  # typer's own copy of click raises these
from typer.core import TyperGroup

USAGE = 2
RUNTIME = 1
UsageError = clickx.UsageError


class CommandGroup(TyperGroup):
    """The command group, with one ``error: ...`` line for every known failure.

    Click's usage errors and the project's known errors exit with status 2 (usage) or 1
    (runtime); any other exception is a bug and keeps its traceback.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Run the command line; in standalone mode exit with the status described above."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except clickx.NoArgsIsHelpError as e:
            e.show()  # the help text, as click shows it
            sys.exit(e.exit_code)
        except clickx.ClickException as e:
            _fail(e.format_message(), e.exit_code)
        except typer.Abort:
            _fail("aborted", RUNTIME)
        except Exception as e:
            code = exit_status(e)
            if code is None:
                raise
            _fail(str(e), code)
        sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    sys.exit(code)


def exit_status(e: BaseException) -> int | None:
    """The exit status for a known error (2 usage, 1 runtime), or None for anything else."""
    # Imported here: the command line starts without the bench and LLM modules.
    from scenarios import ScenarioFormatError
    from sotopia_tom_app.bench.lock import FolderInUse
    from sotopia_tom_app.bench.report import NoEpisodes
    from sotopia_tom_app.bench.runner import ConfigDamaged, ConfigMismatch, EpisodeError
    from sotopia_tom_env.llm import LLMError
    from sotopia_tom_env.llm.server import ServerStartError

    usage = (ScenarioFormatError, FolderInUse, NoEpisodes, ConfigDamaged, ConfigMismatch)
    if isinstance(e, usage):
        return USAGE
    if isinstance(e, ServerStartError | EpisodeError | LLMError):
        return RUNTIME
    return None


class _EchoHandler(logging.Handler):
    """Shows the project's warnings as ``warning: ...`` lines on stderr (looked up per line)."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(f"{record.levelname.lower()}: {record.getMessage()}", err=True)


def show_warnings() -> None:
    """Print warnings of the project's modules (e.g. a skipped damaged record) on stderr."""
    for name in ("sotopia_tom_env", "sotopia_tom_app", "scenarios"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, _EchoHandler) for h in logger.handlers):
            logger.addHandler(_EchoHandler(logging.WARNING))


def installed_version() -> str:
    """The installed distribution's version, or a note that the package is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sotopia-tom-env")
    except PackageNotFoundError:  # run from a source tree without `pip install -e .`
        return "unknown (not installed as a package)"


def bad(option: str, message: str) -> clickx.BadParameter:
    """A usage error about one option: ``Invalid value for '--x': message``."""
    return clickx.BadParameter(message, param_hint=f"'{option}'")


def names(value: str, option: str) -> list[str]:
    """A comma-separated list, blanks and repeats dropped; at least one name."""
    out = list(dict.fromkeys(p.strip() for p in value.split(",") if p.strip()))
    if not out:
        raise bad(option, f"{value!r} names nothing; give a comma-separated list")
    return out


def seeds(value: str, option: str = "--seeds") -> list[int]:
    """Comma-separated non-negative integer seeds, repeats dropped."""
    out = []
    for part in names(value, option):
        try:
            seed = int(part)
        except ValueError:
            raise bad(option, f"{part!r} is not an integer seed") from None
        if seed < 0:
            raise bad(option, f"{seed} is negative; seeds are 0 or more")
        out.append(seed)
    return out


def choices(values: Sequence[str], known: Sequence[str], option: str, what: str) -> None:
    """Raise a usage error naming the values that are not among ``known``."""
    unknown = [v for v in values if v not in known]
    if unknown:
        raise bad(option, f"unknown {what} {unknown}; known: {', '.join(sorted(known))}")


def policies(values: Sequence[str], option: str, base_url: str | None, what: str) -> list[Any]:
    """Check policy names (registered, or ``trained:PATH[+STRATEGY]``); return the trained ones.

    A trained adapter must be a local adapter folder unless ``--base-url`` serves it by name.
    """
    from policies import POLICIES
    from policies.trained import check_local, parse_trained

    trained = []
    for name in values:
        try:
            spec = parse_trained(name)
            if spec is not None and not base_url:
                check_local(spec)
        except ValueError as e:
            raise bad(option, str(e)) from None
        if spec is not None:
            trained.append(spec)
    known = [*POLICIES, "trained:PATH"]
    choices([v for v in values if not v.startswith("trained:")], known, option, what)
    return trained


def endpoint(model: str | None, base_url: str | None) -> None:
    """``--base-url`` names an endpoint that serves several models: it needs ``--model``."""
    if base_url and not model:
        raise bad("--model", "--base-url needs --model (the name the endpoint serves)")


@contextmanager
def scenario_errors(source: str, option: str | None = None) -> Iterator[None]:
    """Turn a failure to read or select scenarios from ``source`` into a usage error.

    The loaders name the file and field of a malformed record; text that is not UTF-8 and JSON
    nested too deeply for the parser surface as Python errors, converted here.
    """
    where = f"{option}: " if option else ""
    try:
        yield
    except UnicodeDecodeError as e:
        msg = f"{source}: a scenario file is not UTF-8 text ({e.reason} at byte {e.start})"
        raise clickx.UsageError(where + msg) from None
    except RecursionError:
        msg = f"{source}: a scenario file nests JSON too deeply to read"
        raise clickx.UsageError(where + msg) from None
    except (ValueError, FileNotFoundError, IsADirectoryError) as e:
        raise clickx.UsageError(where + str(e)) from None
