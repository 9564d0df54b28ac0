#!/usr/bin/env python3
"""`torsim validate` as a command: where its report goes, that it is written all at once, and
the options it refuses. The claims themselves are checked by the validate:<claim> tests.

Usage: test_validate.py TORSIM_BINARY  (run by CTest; plain unittest, no extra packages)
"""
import json
import os
import resource
import signal

import harness
from harness import Scratch, run

SCENARIO = {"machine": "hopper", "runtime": {"layer": "mpi"}, "placement": {"node_list": [0, 1]},
            "workload": {"name": "pingpong", "sizes": [8], "iterations": 4, "warmup": 1}}


def claim(scenario_path, claim_id="T1"):
    """One calibration-like claim: MPI's 8 B latency on Gemini against K2's 1.27 us."""
    return {"id": claim_id, "kind": "calibration",
            "paper": {"title": "t", "authors": "a", "venue": "v", "year": "y", "doi": "d", "seed": "s"},
            "source": "s", "machine": "m", "quantity": "q", "paper_value": "1.27 us",
            "checks": [{"rule": "absolute", "improved": "mpi", "at": 8, "expected": 1.27, "why": "w"}],
            "curves": {"mpi": {"scenario": scenario_path, "series": "latency", "x": "size_bytes", "y": "latency_us"}}}


class Validate(Scratch):
    def registry(self, *ids):
        scenario = self.write("scenario.json", SCENARIO)
        return self.write("claims.json", {"claims": [claim(scenario, i) for i in ids or ("T1",)]})

    def test_a_report_that_cannot_be_written_in_full_leaves_nothing(self):
        # A file-size limit makes every write past 512 bytes fail (EFBIG), as a full disk would.
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
        report = self.path("report")
        proc = run("validate", "--registry", self.registry(), "--report", report, "--no-plots", preexec_fn=limit)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("cannot write", proc.stderr)
        self.assertFalse(os.path.exists(report), "no partial report may be left")
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".")], [], "no staging directory may be left")

    def test_a_report_is_written_whole(self):
        report = self.path("report")
        run("validate", "--registry", self.registry(), "--report", report, "--no-plots", check=True)
        self.assertEqual(sorted(os.listdir(report)), ["README.md", "validation.json"])
        with open(os.path.join(report, "validation.json")) as f:
            self.assertEqual(json.load(f)["claims"][0]["status"], "reproduced")


if __name__ == "__main__":
    harness.main()
