"""The application layer: the ``sotopia-tom`` command line, the benchmark runner and its reports.

It sits on top of every other package (``scenarios``, ``sotopia_tom_env``, ``rewards``,
``policies``, ``training``) and nothing below imports it; ``tests/test_layers.py`` checks this.
"""
