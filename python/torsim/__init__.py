"""Run torsim scenarios and load their results as pandas DataFrames.

    import torsim
    run = torsim.run("scenarios/xe6/mpi-latency.json", out="/tmp/mpi")
    run.series("latency")        # one row per series row, sweep values as columns
    run.metrics                  # one row per sweep point
    torsim.load("/tmp/mpi")      # the same, from a run's output directory

The binary is $TORSIM, else build/torsim of the source tree this package sits in, else `torsim`
on PATH. docs/python.md has the details and an example that redraws a validation plot.
"""
from .results import Results, Validation, load, read_validation
from .runner import TorsimError, binary, run

__all__ = ["Results", "Validation", "TorsimError", "binary", "load", "read_validation", "run"]
