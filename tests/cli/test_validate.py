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
        self.assertEqual(sorted(os.listdir(report)), [".torsim-files", "README.md", "validation.json"])
        with open(os.path.join(report, "validation.json")) as f:
            self.assertEqual(json.load(f)["claims"][0]["status"], "reproduced")

    def test_an_empty_claim_list_is_an_error(self):
        registry = self.registry()
        for only in ("", ",", "T1,", "T1,,T1"):
            proc = run("validate", "--registry", registry, "--report", self.path("r"), "--no-plots", "--only", only)
            self.assertEqual(proc.returncode, 2, f"--only '{only}': {proc.stderr}")
            self.assertIn("empty claim id", proc.stderr)
            self.assertFalse(os.path.exists(self.path("r")))


class CommittedReport(Scratch):
    """Only a full run of the project's registry rewrites its committed report (docs/validation/
    under TORSIM_DATA, the source tree by default); a partial, reduced-scale or what-if run writes
    to results/validation/ in the working directory unless --report says where."""

    def setUp(self):
        super().setUp()
        os.symlink(os.path.join(harness.ROOT, "scenarios"), self.path("scenarios"))
        os.makedirs(self.path("validation"))
        os.makedirs(self.path("docs", "validation"))
        self.write("scenario.json", SCENARIO)
        self.write(os.path.join("validation", "claims.json"),
                   {"claims": [claim("scenario.json", "T1"), claim("scenario.json", "T2")]})
        self.committed = self.write(os.path.join("docs", "validation", "README.md"), "the committed report\n")
        self.env = dict(os.environ, TORSIM_DATA=self.dir)

    def validate(self, *args):
        return run("validate", "--no-plots", *args, cwd=self.dir, env=self.env)

    def assert_committed_untouched(self):
        self.assertEqual(harness.read(self.committed), "the committed report\n")

    def test_a_partial_or_quick_run_leaves_the_committed_report(self):
        for args in (["--only", "T1"], ["--quick"], ["--only", "T1", "--quick"]):
            proc = self.validate(*args)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assert_committed_untouched()
            self.assertIn("wrote results/validation/README.md", proc.stdout)
            self.assertTrue(os.path.exists(self.path("results", "validation", "validation.json")))

    def test_the_full_run_rewrites_the_committed_report(self):
        proc = self.validate()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("| T2 |", harness.read(self.committed))

    def test_a_what_if_is_reported_as_such_and_never_recorded(self):
        status = self.write("status.json", {"full": {"T1": "reproduced"}})
        what_if = "machine.runtimes.mpi.send_cpu=10us"
        for flag in ("--record-status", "--check-status"):
            proc = self.validate("--set", what_if, flag, status)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("what-if", proc.stderr)
        self.assertEqual(json.loads(harness.read(status)), {"full": {"T1": "reproduced"}})
        proc = self.validate("--set", what_if)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_committed_untouched()
        self.assertIn("not reproduced (robust; what-if)", proc.stdout)  # 10 us more per message: far from 1.27 us
        report = harness.read(self.path("results", "validation", "README.md"))
        self.assertIn("`torsim validate --set " + what_if + "`", report)
        self.assertIn("**What-if**", report)
        self.assertIn("| T1 | 1.27 us | 11.", report)
        self.assertIn("not reproduced (robust; what-if) |", report)
        doc = json.loads(harness.read(self.path("results", "validation", "validation.json")))
        self.assertEqual(doc["what_if"], [what_if])

    def test_a_what_if_the_claims_cannot_take_is_an_input_error(self):
        proc = self.validate("--set", "machine.runtimes.mpi.send_cpuu=10us")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("send_cpuu", proc.stderr)
        self.assertFalse(os.path.exists(self.path("results")))


if __name__ == "__main__":
    harness.main()
