#!/usr/bin/env python3
"""Traces (docs/traces.md): the Chrome trace-event structure Perfetto reads, a ping-pong whose
spans add up to its simulated time, the rank, point and time-window options, link counters that
integrate to links.csv's busy times, and the size cap.

Usage: test_trace.py TORSIM_BINARY  (run by CTest)
"""
import json
import os
from decimal import Decimal

from harness import Scratch, run

# One MPI round trip of 8 B between the two nodes of one Gemini: rank 0 sends, waits, receives.
PINGPONG = {"machine": "hopper", "placement": {"node_list": [0, 1]}, "runtime": {"layer": "mpi"},
            "workload": {"name": "pingpong", "sizes": [8], "iterations": 1, "warmup": 0},
            "output": {"trace": {}, "link_stats": True}}
CPU_USES = {"compute", "send", "receive", "match", "copy", "poll", "registration", "scheduler", "connection"}


class Trace(Scratch):
    def trace_run(self, scenario, *args, expect_warning=False):
        out = self.path("out")
        proc = run("run", self.write("s.json", scenario), "--out", out, "--quiet", *args, check=True)
        self.assertEqual("warning" in proc.stderr, expect_warning, proc.stderr)
        with open(os.path.join(out, "trace.json")) as f:
            trace = json.load(f, parse_float=Decimal)  # timestamps are exact decimals of picoseconds
        return trace, self.results(out), proc.stderr

    def slices(self, trace, pid=1):
        return [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == pid]

    def assert_chrome_trace(self, trace):
        self.assertEqual(set(trace), {"traceEvents", "displayTimeUnit"})
        for e in trace["traceEvents"]:
            self.assertIn(e["ph"], {"M", "X", "C", "i"}, e)
            self.assertIsInstance(e["pid"], int)
            if e["ph"] == "M":
                self.assertIn(e["name"], {"process_name", "process_sort_index", "thread_name", "thread_sort_index"})
                self.assertEqual(len(e["args"]), 1)
            elif e["ph"] == "X":
                self.assertGreaterEqual(e["ts"], 0)
                self.assertGreater(e["dur"], 0)
                self.assertIsInstance(e["tid"], int)
                self.assertIn(e["name"], CPU_USES | {"wait"})
                self.assertEqual(e["cat"], "wait" if e["name"] == "wait" else "cpu")
            elif e["ph"] == "C":
                (value,) = e["args"].values()
                self.assertGreaterEqual(value, 0)

    def test_structure_and_a_ping_pong_adds_up_to_its_simulated_time(self):
        trace, results, _ = self.trace_run(PINGPONG)
        self.assert_chrome_trace(trace)
        point = results["points"][0]
        names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
        self.assertEqual(names, {1: "rank 0 (node 0)", 2: "rank 1 (node 1)"})
        rank0 = self.slices(trace)
        rank0 = [e for e in rank0 if e["tid"] == 1]
        # Contiguous from 0: each slice starts where the one before it ended.
        self.assertEqual(rank0[0]["ts"], 0)
        for before, after in zip(rank0, rank0[1:]):
            self.assertEqual(before["ts"] + before["dur"], after["ts"])
        total = sum(e["dur"] for e in rank0)
        self.assertEqual(total, Decimal(repr(point["simulated_time_us"])))
        self.assertEqual(total, 2 * Decimal(repr(point["metrics"]["smallest_size_latency_us"])))  # one round trip
        uses = {e["name"] for e in rank0}
        self.assertTrue({"send", "wait", "receive"} <= uses, uses)
        # Rank 1 waits for the ping first.
        self.assertEqual([e["name"] for e in self.slices(trace) if e["tid"] == 2][0], "wait")

    def test_a_replay_has_a_track_of_calls_per_rank(self):
        # The AMG trace on Hopper: each rank's replayed MPI calls on a track beside its core's,
        # a slice per call that took simulated time (at most the calls series' count).
        amg = os.path.join(os.path.dirname(__file__), "..", "data", "traces", "dumpi-amg27-hopper")
        scenario = {"machine": "hopper", "runtime": {"layer": "mpi"},
                    "workload": {"name": "trace", "path": os.path.abspath(amg)}, "output": {"trace": {}}}
        trace, results, _ = self.trace_run(scenario)
        names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
        ranks = results["points"][0]["job"]["ranks"]
        for r in range(27):
            self.assertEqual(names[ranks + r + 1], f"rank {r} calls")
        calls = [e for e in self.slices(trace) if e.get("cat") == "call"]
        self.assertEqual({e["tid"] for e in calls}, {ranks + r + 1 for r in range(27)})
        series = results["points"][0]["series"]["calls"]
        counts = {row[0]: row[1] for row in series["rows"]}
        drawn = {}
        for e in calls:
            drawn[e["name"]] = drawn.get(e["name"], 0) + 1
        self.assertTrue(set(drawn) <= set(counts))
        for name, count in drawn.items():
            self.assertLessEqual(count, counts[name], name)
        self.assertGreater(drawn["waitall"], counts["waitall"] / 2)

    def test_link_counters_integrate_to_the_links_busy_time(self):
        trace, results, _ = self.trace_run(dict(PINGPONG, output={"trace": {"links": [0, 1]}, "link_stats": True}))
        with open(os.path.join(self.path("out"), "links.csv")) as f:
            rows = [line.split(",") for line in f.read().splitlines()[1:]]
        for kind in ("injection", "ejection", "network"):
            busy = sum(float(r[7]) for r in rows if r[2] == kind)
            track = [e for e in trace["traceEvents"] if e["ph"] == "C" and e["name"].startswith(kind + " links busy")]
            self.assertTrue(track, kind)
            integral = sum(float(a["args"]["links"]) * float(b["ts"] - a["ts"]) for a, b in zip(track, track[1:]))
            self.assertAlmostEqual(integral, busy, places=9, msg=kind)
            self.assertEqual(track[-1]["args"]["links"], 0)
        own = {e["name"] for e in trace["traceEvents"] if e["ph"] == "C" and e["name"].startswith("link ")}
        self.assertEqual(len(own), 2, own)

    def test_a_subset_of_ranks_and_a_time_window(self):
        window = {"ranks": [1], "from": "1us", "to": "1.5us"}
        trace, _, _ = self.trace_run(dict(PINGPONG, output={"trace": window}))
        self.assert_chrome_trace(trace)
        slices = self.slices(trace)
        self.assertTrue(slices)
        self.assertEqual({e["tid"] for e in slices}, {2})
        self.assertEqual({e["tid"] for e in trace["traceEvents"] if e["name"] == "thread_name"}, {2})
        for e in slices:
            self.assertGreaterEqual(e["ts"], 1)
            self.assertLessEqual(e["ts"] + e["dur"], Decimal("1.5"))
        self.assertEqual(sum(e["dur"] for e in slices), Decimal("0.5"))  # rank 1 is busy or waiting throughout
        counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
        self.assertTrue(all(1 <= e["ts"] <= Decimal("1.5") for e in counters))

    def test_points_of_a_sweep_and_the_command_line_file(self):
        scenario = dict(PINGPONG, sweep={"workload.sizes": [[8], [4096], [65536]]},
                        output={"trace": {"points": [0, 2]}})
        trace_file = self.path("elsewhere.json")
        out = self.path("out")
        run("run", self.write("s.json", scenario), "--out", out, "--quiet", "--trace", trace_file, check=True)
        self.assertFalse(os.path.exists(os.path.join(out, "trace.json")))
        with open(trace_file) as f:
            trace = json.load(f)
        processes = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
        self.assertEqual(sorted(processes), [1, 3])
        self.assertIn("point 2: workload.sizes=[65536]", processes[3])

    def test_a_command_line_trace_inside_the_output_directory(self):
        # The output directory does not exist yet: the trace is staged and published with it.
        out = self.path("new", "out")
        proc = run("run", self.write("s.json", PINGPONG), "--out", out, "--trace", os.path.join(out, "mine.json"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("mine.json", os.listdir(out))
        self.assertNotIn("trace.json", os.listdir(out))
        with open(os.path.join(out, ".torsim-files")) as f:
            self.assertIn("mine.json\n", f.read())
        self.assertIn(f"wrote the trace {out}/mine.json", proc.stdout)

    def test_size_cap_stops_the_trace_with_a_warning(self):
        scenario = dict(PINGPONG, workload=dict(PINGPONG["workload"], iterations=200),
                        output={"trace": {"max_size": "4KiB"}})
        trace, _, stderr = self.trace_run(scenario, expect_warning=True)
        self.assertIn("max_size", stderr)
        self.assertIn("stops at", stderr)
        self.assertLessEqual(os.path.getsize(os.path.join(self.path("out"), "trace.json")), 4096 + 4096)
        stops = [e for e in trace["traceEvents"] if e["ph"] == "i"]
        self.assertEqual(len(stops), 1)
        self.assertIn("max_size", stops[0]["name"])
        self.assertTrue(all(e["ts"] <= stops[0]["ts"] for e in self.slices(trace)))

    def test_simgrid_backend_traces_its_ranks(self):
        # SimGrid points run in a child process: the trace comes from there.
        trace, results, _ = self.trace_run(dict(PINGPONG, network={"model": "simgrid"}))
        rank0 = [e for e in self.slices(trace) if e["tid"] == 1]
        self.assertEqual(sum(e["dur"] for e in rank0), Decimal(repr(results["points"][0]["simulated_time_us"])))


if __name__ == "__main__":
    import harness
    harness.main()
