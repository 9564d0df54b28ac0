#!/usr/bin/env python3
"""Trace replay from the command line (docs/replay.md): a replay is deterministic, byte for byte,
serial or with --jobs; its series read back through the Python package; a run recorded with
--record-mpi and replayed gives back the run it came from.

Usage: test_replay.py TORSIM_BINARY  (run by CTest)
"""
import os
import subprocess
import sys

from harness import ROOT, Scratch, main, read, run, without_wall

AMG = os.path.join(ROOT, "tests", "data", "traces", "dumpi-amg27-hopper")
STENCIL = os.path.join(ROOT, "tests", "data", "traces", "otf2-stencil4d")
MESH = os.path.join(ROOT, "tests", "data", "traces", "dumpi-testtrace-mesh")
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

    def test_flop_rate_in_a_sweep_is_read_by_its_time_independent_points(self):
        # flop_rate is read by the time-independent trace's point only: the sweep reads it (a
        # sweep none of whose traces is time-independent is the bad-input case
        # replay-flop-rate-unread-by-every-point).
        def points(flop_rate):
            scenario = {"machine": {"preset": "qdr-cluster", "node": {"cores": 16}},
                        "placement": {"nodes": 2, "ranks_per_node": 16},
                        "workload": {"name": "trace", "path": AMG, "flop_rate": flop_rate},
                        "sweep": {"workload.path": [AMG, ACTIONS]}}
            out = self.run_into("flops-%g" % flop_rate, scenario)
            return [p["metrics"] for p in self.results(out)["points"]]
        slow, fast = points(1e9), points(2e9)
        self.assertEqual(slow[0], fast[0])  # the DUMPI trace's recorded times
        self.assertNotEqual(slow[1], fast[1])  # the compute actions at the given rate

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

    def test_placement_from_mesh_coordinates(self):
        # The fixture is what scripts/dumpi_set_mesh.py makes of sst-dumpi's test trace.
        where = {0: ("1,2,3", "nid00010"), 1: ("1,2,3", "nid00011"), 2: ("4,5,6", "nid00020"), 3: ("4,5,6", "nid00021")}
        for rank, (coords, host) in where.items():
            name = f"testtrace-{rank:04d}.bin"
            made = self.path(name)
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "dumpi_set_mesh.py"),
                            os.path.join(ROOT, "tests", "data", "traces", "dumpi-testtrace", name), made,
                            "--coords", coords, "--mesh", "17,8,24", "--host", host], check=True)
            with open(made, "rb") as a, open(os.path.join(MESH, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        # Two Gemini routers, two hosts on each: four nodes of one rank.
        out = self.run_into("mesh", {"machine": "hopper", "runtime": {"layer": "mpi"},
                                     "placement": {"from_trace": True}, "workload": {"name": "trace", "path": MESH}})
        job = self.results(out)["points"][0]["job"]
        self.assertEqual((job["nodes"], job["ranks_per_node"]), (4, 1))


class RecordAndReplay(Scratch):
    """`torsim run --record-mpi FILE` and a replay of FILE on the same machine, placement and
    layer: the same simulated time, messages, bytes and events, and the same core time by use
    (a workload's copies are recorded as computation: compute + copy is kept)."""

    def round_trip(self, scenario):
        recording = self.path("recording.txt")
        run("run", self.write("run.json", scenario), "--out", self.path("run"), "--quiet", "--record-mpi", recording,
            check=True)
        replay = dict(scenario, workload={"name": "trace", "path": recording})
        run("run", self.write("replay.json", replay), "--out", self.path("replay"), "--quiet", check=True)
        ran, replayed = (self.results(self.path(out))["points"][0] for out in ("run", "replay"))
        self.assertEqual(ran["simulated_time_us"], replayed["simulated_time_us"])
        self.assertEqual(replayed["metrics"]["unsupported_calls"], 0)
        for key in ("events", "messages", "payload_bytes", "wire_bytes", "intra_node_messages"):
            self.assertEqual(ran["counters"][key], replayed["counters"][key], key)
        core, core_replayed = ran["counters"]["core_time_us"], replayed["counters"]["core_time_us"]
        self.assertAlmostEqual(core["compute"] + core["copy"], core_replayed["compute"] + core_replayed["copy"],
                               delta=1e-6)
        for use in core:
            if use not in ("compute", "copy"):
                self.assertEqual(core[use], core_replayed[use], use)
        return recording, ran

    def test_pingpong_over_cray_mpich(self):
        scenario = {"machine": "hopper", "runtime": {"layer": "mpi"},
                    "placement": {"node_list": [0, 2], "ranks_per_node": 1},
                    "workload": {"name": "pingpong", "sizes": {"from": "8B", "to": "64KiB", "factor": 8},
                                 "iterations": 5, "warmup": 1}}
        recording, ran = self.round_trip(scenario)
        self.assertEqual(read(recording), "recording.txt_files/rank-0.txt\nrecording.txt_files/rank-1.txt\n")
        lines = read(recording + "_files/rank-0.txt").splitlines()
        self.assertEqual(lines[:4], ["0 isend 1 0 8", "0 wait 0 1 0", "0 irecv 1 0 -1", "0 wait 1 0 0"])
        self.assertEqual(sum(line.split()[1] == "isend" for line in lines), 30)  # 5 sizes x (1 + 5) rounds
        # The same run records the same trace.
        again = self.path("again.txt")
        run("run", self.path("run.json"), "--out", self.path("again"), "--quiet", "--record-mpi", again, check=True)
        self.assertEqual(read(recording + "_files/rank-1.txt"), read(again + "_files/rank-1.txt"))

    def test_fft_slabs_on_blue_gene_p(self):
        # Computation, copies, non-blocking sends and receives drained in windows, a barrier and an
        # allreduce, over DCMF's MPI on 64 ranks.
        scenario = {"machine": "intrepid-64", "placement": {"mode": "VN"}, "runtime": {"layer": "mpi_dcmf"},
                    "workload": {"name": "fft3d", "variant": "mpi_slabs", "nx": 64, "ny": 64, "nz": 32}}
        recording, ran = self.round_trip(scenario)
        self.assertGreater(ran["counters"]["messages"], 1000)
        rank = read(recording + "_files/rank-0.txt").split("\n")
        self.assertEqual(rank[0], "0 barrier")
        self.assertTrue(rank[1].startswith("0 compute "), rank[1])

    def test_what_cannot_be_recorded_is_an_error_and_nothing_is_written(self):
        pingpong = {"machine": "hopper", "runtime": {"layer": "raw"},
                    "placement": {"node_list": [0, 2], "ranks_per_node": 1},
                    "workload": {"name": "pingpong", "sizes": [8], "iterations": 2, "warmup": 0}}
        cases = {"one-sided": dict(pingpong, workload=dict(pingpong["workload"], operation="put")),
                 "a sweep": dict(pingpong, sweep={"workload.iterations": [1, 2]})}
        for name, scenario in cases.items():
            with self.subTest(name):
                recording = self.path("rec", "trace.txt")
                os.makedirs(self.path("rec"), exist_ok=True)
                proc = run("run", self.write("s.json", scenario), "--out", self.path("out"), "--quiet",
                           "--record-mpi", recording)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("--record-mpi", proc.stderr)
                self.assertEqual(os.listdir(self.path("rec")), [])
                self.assertFalse(os.path.exists(self.path("out")))


if __name__ == "__main__":
    main()
