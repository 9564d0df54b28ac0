#!/usr/bin/env python3
"""Trace replay from the command line (docs/replay.md): a replay is deterministic, byte for byte,
serial or with --jobs; its series read back through the Python package.

Usage: test_replay.py TORSIM_BINARY  (run by CTest)
"""
import os

from harness import ROOT, Scratch, main, read, run, without_wall

AMG = os.path.join(ROOT, "tests", "data", "traces", "dumpi-amg27-hopper")
STENCIL = os.path.join(ROOT, "tests", "data", "traces", "otf2-stencil4d")
ACTIONS = os.path.join(ROOT, "tests", "data", "traces", "ti-simgrid-actions", "actions_with_isend.txt")


class Replay(Scratch):
    def run_into(self, name, scenario, *args):
        out = self.path(name)
        path = scenario if isinstance(scenario, str) else self.write("s.json", scenario)
        run("run", path, "--out", out, "--quiet", *args, check=True)
        return out

    def test_deterministic_serial_and_in_parallel(self):
        # Three traces (DUMPI, OTF2, time-independent), each over two layers: six points.
        scenario = {"machine": {"preset": "qdr-cluster", "node": {"cores": 16}},
                    "placement": {"nodes": 2, "ranks_per_node": 16},
                    "workload": {"name": "trace", "path": AMG},
                    "sweep": {"workload.path": [AMG, STENCIL, ACTIONS], "runtime.layer": ["raw", "mpi"]}}
        path = self.write("s.json", scenario)
        serial = self.run_into("serial", path)
        again = self.run_into("again", path)
        parallel = self.run_into("parallel", path, "--jobs", "2")
        text = without_wall(read(os.path.join(serial, "results.json")))
        self.assertEqual(text, without_wall(read(os.path.join(again, "results.json"))))
        self.assertEqual(text, without_wall(read(os.path.join(parallel, "results.json"))))
        for csv in ("calls.csv", "ranks.csv"):
            self.assertEqual(read(os.path.join(serial, csv)), read(os.path.join(parallel, csv)), csv)
        points = self.results(serial)["points"]
        self.assertEqual(len(points), 6)
        for p in points:
            self.assertEqual(p["blocked_processes"], 0, p["sweep"])
            self.assertEqual(p["metrics"]["unsupported_calls"], 0, p["sweep"])

    def test_series_read_back_through_the_python_package(self):
        import sys
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import torsim
        out = self.run_into("amg", {"machine": "hopper", "runtime": {"layer": "mpi"},
                                    "workload": {"name": "trace", "path": AMG}})
        calls = torsim.load(out).series("calls")
        self.assertEqual(list(calls.columns), ["call", "count", "recorded_total_us", "simulated_total_us",
                                               "recorded_median_us", "simulated_median_us"])
        self.assertEqual(dict(zip(calls["call"], calls["count"]))["isend"], 15524)


if __name__ == "__main__":
    main()
