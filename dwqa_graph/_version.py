"""The package version: the one place it is written (pyproject.toml reads it from here).

Its own module, below every stage, so a stage that records it (a fetch's User-Agent, a
round's θ) does not import the package root, which imports every stage."""

__version__ = "0.1.0"
