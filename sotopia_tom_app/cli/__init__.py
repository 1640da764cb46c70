"""The ``sotopia-tom`` command line: this module only builds the group and registers the commands.

Each command lives in a module of its own (``run``, ``bench``, ``report``, ...), the options
several share in ``options``, the printing of episodes and scores in ``output``. Bad option
values and unreadable inputs end in one ``error:`` line with exit status 2, failures of an LLM
server or endpoint with status 1 (see ``errors``); values are checked before any server starts
or any file is written.
"""

from __future__ import annotations

import typer

from sotopia_tom_app.cli import (
    bench,
    generate,
    judge,
    listing,
    play,
    report,
    root,
    run,
    serve,
    show,
    stats,
    train,
    validate,
)
from sotopia_tom_app.cli import errors as checks

__all__ = ["app"]

app = typer.Typer(
    cls=checks.CommandGroup,
    add_completion=True,
    no_args_is_help=True,
    help="Sotopia-ToM environment tools.",
)
app.callback()(root.root)

# In the order `sotopia-tom --help` lists them.
app.add_typer(listing.list_app, name="list")
app.command()(show.show)
app.command()(validate.validate)
app.command()(stats.stats)
app.command()(run.run)
app.command()(play.play)
app.command("judge")(judge.judge_cmd)
app.command()(bench.bench)
app.command()(report.report)
app.command()(generate.generate)
app.command()(serve.serve)
app.command()(train.train)
