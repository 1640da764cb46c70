"""``python -m sotopia_tom_app.cli``: the same command line as ``sotopia-tom``."""

from sotopia_tom_app.cli import app

app()
