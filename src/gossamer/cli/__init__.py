"""The ``gossamer`` command line (Typer).  Entry point: :func:`gossamer.cli.main.main`."""
