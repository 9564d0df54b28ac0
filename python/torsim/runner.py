"""Running the torsim binary."""
import os
import shutil
import subprocess
import tempfile

from .results import load

SOURCE_TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class TorsimError(RuntimeError):
    """torsim exited with an error; `returncode` is 2 for bad input, 1 for an internal error."""

    def __init__(self, returncode, stderr):
        super().__init__(stderr.strip() or f"torsim exited with status {returncode}")
        self.returncode = returncode
        self.stderr = stderr


def binary():
    """The torsim binary: $TORSIM, else build/torsim of this source tree, else torsim on PATH."""
    if os.environ.get("TORSIM"):
        return os.environ["TORSIM"]
    built = os.path.join(SOURCE_TREE, "build", "torsim")
    if os.path.exists(built):
        return built
    found = shutil.which("torsim")
    if not found:
        raise FileNotFoundError("no torsim binary: build it (make build) or set $TORSIM")
    return found


def run(scenario, out=None, sets=None, jobs=1, trace=None, extra=()):
    """Runs a scenario file and returns its Results.

    out: the output directory (default: a temporary directory, read into memory and removed);
    sets: {"workload.sizes": "[8,64]", ...} as --set path=value; jobs: sweep points run at once;
    trace: a trace file to write; extra: more command-line arguments. Raises TorsimError on
    failure."""
    if out:
        return _run(scenario, out, sets, jobs, trace, extra)
    with tempfile.TemporaryDirectory(prefix="torsim-") as scratch:
        results = _run(scenario, os.path.join(scratch, "out"), sets, jobs, trace, extra)
        results._read_into_memory()
        return results


def _run(scenario, out, sets, jobs, trace, extra):
    command = [binary(), "run", os.fspath(scenario), "--out", os.fspath(out), "--quiet", "--jobs", str(jobs)]
    for path, value in (sets or {}).items():
        command += ["--set", f"{path}={value}"]
    if trace:
        command += ["--trace", os.fspath(trace)]
    command += list(extra)
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise TorsimError(proc.returncode, proc.stderr)
    return load(out)
