"""The version of rankmetrics: the one place it is written (the package's metadata, reports
and saved evaluations read it here)."""

__version__ = "0.1.0"
