"""``sotopia-tom serve``: a local vLLM server in the foreground."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sotopia_tom_app.cli.options import ModelOpt


def serve(
    model: ModelOpt = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="TCP port; default: a free one.")
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(dir_okay=False, help="File for the server's output; default: a temp file."),
    ] = None,
) -> None:
    """Start a local vLLM server in the foreground (Ctrl-C stops it)."""
    from sotopia_tom_env.llm import serve as serve_forever

    serve_forever(model, port, log)
