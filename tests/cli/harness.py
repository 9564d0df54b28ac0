"""What the command-line test suites share: running the binary, scratch directories.

Each suite is run by CTest as `test_<suite>.py TORSIM_BINARY` and ends with `harness.main()`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORSIM = os.environ.get("TORSIM", os.path.join(ROOT, "build", "torsim"))
# Under sanitizers (the build-sanitize tree) runs are slower and timing figures mean nothing.
SANITIZED = bool(os.environ.get("TORSIM_SANITIZED"))


def run(*args, check=False, **kwargs):
    proc = subprocess.run([TORSIM, *args], capture_output=True, text=True, cwd=kwargs.pop("cwd", ROOT), **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"torsim {' '.join(args)} failed: {proc.stderr}")
    return proc


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def without_wall(results_text):
    """results.json's text up to its "wall" object: the keys are sorted and "wall" comes last, so
    everything before it is what a run computes, byte for byte."""
    head, sep, _ = results_text.partition('\n  "wall": {')
    assert sep, "results.json has no wall object last"
    return head


class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="torsim-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def write(self, name, content):
        path = self.path(name)
        if isinstance(content, bytes):
            with open(path, "wb") as f:
                f.write(content)
            return path
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def results(self, out):
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)


def main():
    global TORSIM
    if len(sys.argv) > 1:
        TORSIM = os.path.abspath(sys.argv.pop(1))
    os.environ["TORSIM"] = TORSIM
    unittest.main(module="__main__", verbosity=1)
