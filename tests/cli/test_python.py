#!/usr/bin/env python3
"""The Python package (python/torsim, docs/python.md): it installs with `pip install -e`, runs a
scenario, loads results.json and the CSVs as DataFrames that agree with the files, loads
validation.json, and the example in docs/python.md runs as written.

Usage: test_python.py TORSIM_BINARY  (run by CTest; needs pandas and matplotlib, which
scripts/setup.sh installs)
"""
import json
import os
import re
import subprocess
import sys
import unittest

from harness import ROOT, SANITIZED, Scratch

sys.path.insert(0, os.path.join(ROOT, "python"))
import torsim  # noqa: E402

SWEEP = {"machine": "hopper", "placement": {"node_list": [0, 2]},
         "workload": {"name": "pingpong", "sizes": [8, 4096], "iterations": 2},
         "sweep": {"machine.node.nic_latency": ["500ns", "1us"]}, "output": {"link_stats": True}}


class Package(Scratch):
    def test_run_and_load_agree_with_the_files(self):
        out = self.path("out")
        results = torsim.run(self.write("s.json", SWEEP), out=out, sets={"workload.iterations": 3}, jobs=2)
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        self.assertEqual(results.doc, doc)
        metrics = results.metrics
        self.assertEqual(list(metrics["machine.node.nic_latency"]), ["500ns", "1us"])
        self.assertEqual(list(metrics["smallest_size_latency_us"]),
                         [p["metrics"]["smallest_size_latency_us"] for p in doc["points"]])
        latency = results.series("latency")
        self.assertEqual(list(latency.columns), ["machine.node.nic_latency", "size_bytes", "latency_us", "bandwidth_MBps"])
        self.assertEqual(len(latency), 4)
        # From results.json when there is no CSV: the same table.
        os.remove(os.path.join(out, "latency.csv"))
        again = torsim.load(os.path.join(out, "results.json")).series("latency")
        self.assertEqual(again.values.tolist(), latency.values.tolist())
        self.assertEqual(list(results.counters["simulated_time_us"]), [p["simulated_time_us"] for p in doc["points"]])
        self.assertEqual(set(results.links["point"]), {0, 1})
        with self.assertRaises(KeyError):
            results.series("nothing")

    def test_list_valued_sweep_values_read_back_whole(self):
        # A placement per point: the CSV quotes its JSON text, and results.json gives the same table.
        scenario = dict(SWEEP, sweep={"placement": [{"node_list": [0, 2]}, {"node_list": [0, 40]}]}, output={})
        out = self.path("out")
        results = torsim.run(self.write("s.json", scenario), out=out)
        latency = results.series("latency")
        self.assertEqual(list(latency.columns), ["placement", "size_bytes", "latency_us", "bandwidth_MBps"])
        self.assertEqual(list(latency["placement"]), ['{"node_list":[0,2]}'] * 2 + ['{"node_list":[0,40]}'] * 2)
        self.assertEqual(latency.values.tolist(), results._series_from_json("latency").values.tolist())
        without_csv = torsim.run(self.write("t.json", dict(scenario, output={"csv": False})), out=self.path("json"))
        self.assertEqual(without_csv.series("latency").values.tolist(), latency.values.tolist())

    def test_run_without_out_leaves_no_directory_behind(self):
        # The temporary output directory is read into memory and removed, on success and on error.
        import tempfile
        before, tempfile.tempdir = tempfile.tempdir, self.path("tmp")
        os.mkdir(tempfile.tempdir)
        try:
            results = torsim.run(self.write("s.json", SWEEP))
            with self.assertRaises(torsim.TorsimError):
                torsim.run(self.write("bad.json", dict(SWEEP, workload={"name": "pingpang"})))
        finally:
            tempfile.tempdir = before
        self.assertEqual(os.listdir(self.path("tmp")), [])
        self.assertIsNone(results.directory)
        self.assertEqual(len(results.series("latency")), 4)
        self.assertEqual(set(results.links["point"]), {0, 1})

    def test_bad_input_raises_with_the_exit_code(self):
        with self.assertRaises(torsim.TorsimError) as caught:
            torsim.run(self.write("s.json", dict(SWEEP, workload={"name": "pingpang"})), out=self.path("o"))
        self.assertEqual(caught.exception.returncode, 2)
        self.assertIn("/workload/name", str(caught.exception))

    def test_validation_json(self):
        path = self.write("validation.json", {"claims": [
            {"id": "K9", "status": "reproduced", "quantity": "q", "curves": {"b": {"x": [1, 2], "y": [3, 4]},
                                                                               "a": {"x": [1], "y": [5]}}}]})
        validation = torsim.read_validation(path)
        self.assertEqual(validation.curves("K9").values.tolist(), [["a", 1, 5], ["b", 1, 3], ["b", 2, 4]])
        self.assertEqual(validation.summary["status"].tolist(), ["reproduced"])

    @unittest.skipIf(SANITIZED, "the example runs a full sweep; the normal build runs it")
    def test_docs_example_runs_as_written(self):
        with open(os.path.join(ROOT, "docs", "python.md")) as f:
            code = re.search(r"```python\n(.*?)```", f.read(), re.S).group(1)
        os.symlink(os.path.join(ROOT, "scenarios"), self.path("scenarios"))
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), MPLBACKEND="Agg")
        subprocess.run([sys.executable, "-c", code], cwd=self.dir, env=env, check=True)
        self.assertGreater(os.path.getsize(self.path("mpi-latency.png")), 10000)

    def test_plot_draws_a_sweep_or_a_run_and_refuses_what_has_no_curves(self):
        from harness import run
        out = self.path("out")
        torsim.run(self.write("s.json", SWEEP), out=out)
        proc = run("plot", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, f"wrote {out}.png\n")  # beside the run's directory, not in it
        with open(out + ".png", "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        single = self.path("single")
        torsim.run(self.write("t.json", dict(SWEEP, sweep={})), out=single)
        proc = run("plot", single, "--out", self.path("single.png"))  # one run: its series
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.path("single.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        os.remove(self.path("single.png"))
        bare = self.path("bare")  # one run with metrics only: nothing to draw curves of
        os.makedirs(bare)
        self.write(os.path.join("bare", "results.json"),
                   json.dumps({"scenario": {"name": "x"}, "points": [{"metrics": {"a": 1}, "series": {}}]}))
        proc = run("plot", bare, "--out", self.path("bare.png"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn(f"error: {bare}/results.json: at /points: expected a sweep (2 points or more) or a run "
                      "with series", proc.stderr)
        proc = run("plot", self.path("nothing"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("it holds no results.json", proc.stderr)
        # Without matplotlib (a module that fails to import in its place): exit 2, and why.
        os.makedirs(self.path("nompl", "matplotlib"))
        self.write(os.path.join("nompl", "matplotlib", "__init__.py"), "raise ImportError('no matplotlib here')\n")
        proc = run("plot", out, "--out", self.path("none.png"), env=dict(os.environ, PYTHONPATH=self.path("nompl")))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("drawing needs python3 with matplotlib", proc.stderr)
        self.assertFalse(os.path.exists(self.path("none.png")) or os.path.exists(self.path("bare.png")))

    def test_a_sweep_of_several_keys_is_drawn_against_its_numeric_key_one_line_per_other_value(self):
        from torsim.plot import metric_layout
        points = [{"sweep": {"machine.topology.routing": r, "workload.size": "4KiB", "workload.distance": d},
                   "metrics": {"t": d}} for r in ("dimension_order", "minimal_adaptive") for d in (1, 2, 3)]
        x_key, numeric, lines = metric_layout(points)
        self.assertEqual((x_key, numeric), ("workload.distance", True))  # fewer values but not numeric: a line
        self.assertEqual([text for text, _ in lines], ["routing=dimension_order", "routing=minimal_adaptive"])
        self.assertEqual([[p["sweep"]["workload.distance"] for p in members] for _, members in lines],
                         [[1, 2, 3], [1, 2, 3]])
        # No numeric key: the key with the most values is the axis, as categories.
        names = [{"sweep": {"a": a, "b": b}, "metrics": {}} for a in ("x", "y") for b in ("p", "q", "r")]
        self.assertEqual(metric_layout(names)[:2], ("b", False))

    def test_values_with_units_are_an_axis_at_their_size_rate_or_time(self):
        from torsim.plot import metric_layout, quantity, x_value
        self.assertEqual(quantity("0.25GB/s"), ("rate", 0.25e9))
        self.assertEqual(quantity("4KiB"), ("size", 4096))
        self.assertEqual(quantity(" 4 KiB "), ("size", 4096))  # spaces as the scenario's own parser takes them
        self.assertEqual(quantity("105ns"), ("time", 105e3))
        self.assertEqual(quantity("1e3MB/s"), ("rate", 1e9))
        self.assertIsNone(quantity("dimension_order"))
        self.assertIsNone(quantity("4 parsecs"))
        self.assertEqual([x_value(v) for v in ("1.5GB/s", "250MB/s", 7)], [1.5e9, 250e6, 7])
        rates = [{"sweep": {"network.model": m, "workload.offered_rate": r}, "metrics": {}}
                 for m in ("packet", "analytic") for r in ("1GB/s", "0.25GB/s", "1.5GB/s")]
        self.assertEqual(metric_layout(rates)[:2], ("workload.offered_rate", True))  # an axis, not 3 names
        # Units of different kinds on one key are names again.
        mixed = [{"sweep": {"k": v}, "metrics": {}} for v in ("4KiB", "1GB/s", "8KiB")]
        self.assertEqual(metric_layout(mixed)[:2], ("k", False))

    def test_pip_install_editable(self):
        venv = self.path("venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "-e",
                        os.path.join(ROOT, "python")], check=True, capture_output=True)
        where = subprocess.run([python, "-c", "import torsim; print(torsim.__file__)"], cwd=self.dir,
                               capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(where, os.path.join(ROOT, "python", "torsim", "__init__.py"))


if __name__ == "__main__":
    import harness
    harness.main()
