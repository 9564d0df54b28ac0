#!/usr/bin/env python3
"""Command-line behaviour of torsim: bad input, determinism, describe, reference.

Usage: test_cli.py TORSIM_BINARY  (run by CTest; plain unittest, no extra packages)
"""
import json
import os
import re
import time
import unittest

from harness import ROOT, SANITIZED, Scratch, read, run


class InputErrors(Scratch):
    def expect_input_error(self, scenario, *needles, extra=()):
        path = self.write("s.json", scenario)
        out = os.path.join(self.dir, "out")
        proc = run("run", path, "--out", out, *extra)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        for needle in needles:
            self.assertIn(needle, proc.stderr)
        self.assertFalse(os.path.exists(out), "no output may be written on bad input")
        return proc.stderr


PINGPONG = {"machine": "hopper", "placement": {"node_list": [0, 2]},
            "workload": {"name": "pingpong", "sizes": [8, 4096], "iterations": 2}}


class BadInput(InputErrors):
    """The classes of bad input are in the catalogue (test_bad_input.py); these are the rest."""

    def test_bad_simgrid_options(self):
        self.expect_input_error(dict(PINGPONG, network={"model": "simgrid", "sharing": "TCP"}), "s.json: at /network/sharing",
                                "valid values are: LV08, CM02")
        self.expect_input_error(dict(PINGPONG, network={"model": "simgrid", "crosstraffic": "yes"}),
                                "/network/crosstraffic", "expected true or false")
        self.expect_input_error(dict(PINGPONG, network={"model": "simgrid", "train_bytes": "4KiB"}),
                                "/network/train_bytes")

    def test_bad_override_is_blamed_on_the_scenario(self):
        bad = dict(PINGPONG, machine={"preset": "hopper", "node": {"cores": 0}})
        self.expect_input_error(bad, "s.json: at /machine/node/cores", "expected a value in [1, 4096]")

    def test_usage_errors(self):
        self.assertEqual(run("run").returncode, 2)
        self.assertEqual(run("frobnicate").returncode, 2)
        self.assertEqual(run("run", "does-not-exist.json").returncode, 2)
        self.assertIn("cannot read", run("run", "does-not-exist.json").stderr)


class Runs(Scratch):
    def test_same_scenario_twice_is_byte_identical_apart_from_wall_time(self):
        path = self.write("s.json", dict(PINGPONG, workload={"name": "pingpong", "sizes": [8, 65536]}))
        first, second = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        run("run", path, "--out", first, "--quiet", check=True)
        run("run", path, "--out", second, "--quiet", check=True)
        a, b = self.results(first), self.results(second)
        self.assertIn("wall", a)
        del a["wall"], b["wall"]
        self.assertEqual(json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
        with open(os.path.join(first, "latency.csv")) as f, open(os.path.join(second, "latency.csv")) as g:
            self.assertEqual(f.read(), g.read())

    def test_results_document_and_csv(self):
        out = os.path.join(self.dir, "out")
        run("run", self.write("s.json", PINGPONG), "--out", out, "--quiet", check=True)
        r = self.results(out)
        self.assertEqual(r["machine"]["name"], "hopper")
        self.assertEqual(r["machine"]["nodes"], 6528)
        point = r["points"][0]
        self.assertEqual(point["series"]["latency"]["columns"], ["size_bytes", "latency_us", "bandwidth_MBps"])
        self.assertEqual(len(point["series"]["latency"]["rows"]), 2)
        self.assertGreater(point["counters"]["events"], 0)
        self.assertIn("torsim_version", r)
        with open(os.path.join(out, "latency.csv")) as f:
            self.assertEqual(f.readline().strip(), "size_bytes,latency_us,bandwidth_MBps")

    def test_a_reused_output_directory_holds_one_runs_files(self):
        # links.csv, the trace and the CSVs of a first run do not stay beside a second run's
        # results; a file of the user's own is left alone.
        out = os.path.join(self.dir, "out")
        path = self.write("s.json", dict(PINGPONG, output={"link_stats": True, "trace": {}}))
        run("run", path, "--out", out, "--quiet", check=True)
        self.assertEqual(sorted(os.listdir(out)), [".torsim-files", "latency.csv", "latency_breakdown.csv",
                                                   "links.csv", "results.json", "trace.json"])
        with open(os.path.join(out, "notes.txt"), "w") as f:
            f.write("mine\n")
        run("run", self.write("t.json", dict(PINGPONG, output={"csv": False})), "--out", out, "--quiet", check=True)
        self.assertEqual(sorted(os.listdir(out)), [".torsim-files", "notes.txt", "results.json"])
        self.assertEqual(read(os.path.join(out, ".torsim-files")), "results.json\n")

    def test_an_existing_output_directory_is_written_from_inside(self):
        # --out /scratch/$USER: the parent may not be writable, so the files are staged inside.
        # The staging directory is seen while the second, long point runs.
        import signal
        import subprocess
        out = self.path("out")
        os.mkdir(out)
        scenario = dict(PINGPONG, workload=dict(PINGPONG["workload"], sizes=[8]),
                        sweep={"workload.iterations": [1, 10000000]})
        proc = subprocess.Popen([os.environ["TORSIM"], "run", self.write("s.json", scenario), "--out", out, "--quiet"],
                                stderr=subprocess.DEVNULL)
        staging = os.path.join(out, f".out.partial-{proc.pid}")
        deadline = time.time() + 60
        while not os.path.isdir(staging) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.isdir(staging), "staged inside the existing directory")
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        self.assertEqual(os.listdir(out), [])
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".out")], [])

    @unittest.skipIf(os.geteuid() == 0, "root writes into any directory")
    def test_a_writable_output_directory_in_a_locked_parent(self):
        locked = self.path("locked")
        os.makedirs(os.path.join(locked, "out"))
        os.chmod(locked, 0o555)
        try:
            run("run", self.write("s.json", PINGPONG), "--out", os.path.join(locked, "out"), "--quiet", check=True)
            self.assertIn("results.json", os.listdir(os.path.join(locked, "out")))
        finally:
            os.chmod(locked, 0o755)

    def test_set_name_names_the_default_output_directory(self):
        run("run", self.write("s.json", PINGPONG), "--quiet", "--set", "name=renamed", check=True, cwd=self.dir)
        self.assertEqual(os.listdir(os.path.join(self.dir, "results")), ["renamed"])

    def test_sweep_and_set(self):
        scenario = dict(PINGPONG, sweep={"machine.node.nic_latency": ["500ns", "1us"]})
        out = os.path.join(self.dir, "out")
        run("run", self.write("s.json", scenario), "--out", out, "--quiet", "--set", "workload.sizes=[8]", check=True)
        r = self.results(out)
        self.assertEqual(len(r["points"]), 2)
        small = [p["metrics"]["smallest_size_latency_us"] for p in r["points"]]
        self.assertAlmostEqual(small[1] - small[0], 0.5, places=6)
        with open(os.path.join(out, "latency.csv")) as f:
            self.assertTrue(f.readline().startswith("machine.node.nic_latency,size_bytes"))


    def test_set_machine_takes_a_preset_and_overrides_reach_swept_machines(self):
        # --set machine=NAME expands the preset as a file's machine is; a later --set inside the
        # machine applies to it, and to every machine a sweep substitutes (it was dropped).
        out = os.path.join(self.dir, "out")
        run("run", self.write("s.json", PINGPONG), "--out", out, "--quiet", "--set", "machine=intrepid-512",
            "--set", "machine.node.nic_latency=1us", "--set", "placement.node_list=[0,1]", check=True)
        self.assertEqual(self.results(out)["scenario"]["spec"]["machine"]["node"]["nic_latency"], "1us")
        self.assertEqual(self.results(out)["machine"]["name"], "intrepid-512")
        swept = dict(PINGPONG, sweep={"machine": ["intrepid-128", "intrepid-256"]}, placement={"node_list": [0, 1]})
        path = self.write("swept.json", swept)
        latency = {}
        for nic in ("325ns", "1325ns"):
            out = os.path.join(self.dir, nic)
            run("run", path, "--out", out, "--quiet", "--set", "machine.node.nic_latency=" + nic, check=True)
            latency[nic] = [p["metrics"]["smallest_size_latency_us"] for p in self.results(out)["points"]]
        for before, after in zip(latency["325ns"], latency["1325ns"]):
            self.assertAlmostEqual(after - before, 1.0, places=6)

    def test_an_inline_machine_calibrates_what_the_run_does_not_take(self):
        # An inline machine object is a whole description, as a preset is: its router, its NIC's
        # other parameters and the other layers' calibrations are not unused input for a run on
        # the packet model without credits over MPI (as the scenario's own overrides would be:
        # the bad-input cases router-key-without-credit and calibration-of-another-layer).
        with open(os.path.join(ROOT, "scenarios", "machines", "hopper.json")) as f:
            machine = json.load(f)
        self.assertIn("router", machine)
        self.assertIn("charm_ugni", machine["runtimes"])
        out = os.path.join(self.dir, "inline")
        run("run", self.write("inline.json", dict(PINGPONG, machine=machine, runtime={"layer": "mpi"})), "--out", out,
            "--quiet", check=True)
        self.assertEqual(self.results(out)["machine"]["name"], "hopper")

    def test_simgrid_sweep_is_deterministic_and_matches_the_closed_form_at_zero_load(self):
        # Two sweep points in one torsim process (each SimGrid point runs in its own child).
        scenario = dict(PINGPONG, network={"model": "simgrid"},
                        sweep={"machine.node.nic_latency": ["500ns", "1us"]})
        path = self.write("s.json", scenario)
        first, second = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        run("run", path, "--out", first, "--quiet", check=True)
        run("run", path, "--out", second, "--quiet", check=True)
        a, b = self.results(first), self.results(second)
        del a["wall"], b["wall"]
        self.assertEqual(json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
        self.assertEqual([p["job"]["network_model"] for p in a["points"]], ["simgrid", "simgrid"])
        packet = os.path.join(self.dir, "p")
        run("run", path, "--out", packet, "--quiet", "--set", "network.model=packet", check=True)
        for s, p in zip(a["points"], self.results(packet)["points"]):
            for srow, prow in zip(s["series"]["latency"]["rows"], p["series"]["latency"]["rows"]):
                self.assertAlmostEqual(srow[1], prow[1], places=5)  # 10 ps


class Describe(unittest.TestCase):
    def test_describe_preset_with_route(self):
        proc = run("describe", "hopper", "--json", "--route", "0", "2", check=True)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["nodes"], 6528)
        self.assertEqual(doc["cores"], 156672)
        self.assertEqual(doc["diameter_hops"], 8 + 4 + 12)
        self.assertEqual(doc["route"]["router_hops"], 1)
        self.assertEqual(len(doc["route"]["links"]), 3)

    def test_describe_node_gives_its_router_and_coordinates(self):
        # Hopper: X 17, Y 8, Z 24, two nodes per router; node 4000 is on router 2000, whose
        # coordinates are (2000 % 17, 2000 // 17 % 8, 2000 // 136 % 24) = (11, 5, 14).
        doc = json.loads(run("describe", "hopper", "--json", "--node", "4001", check=True).stdout)
        self.assertEqual(doc["node"], {"node": 4001, "router": 2000, "place": "(11,5,14)/1", "dims": ["X", "Y", "Z"]})
        text = run("describe", "hopper", "--node", "4000", check=True).stdout
        self.assertIn("node 4000: router 2000, at (11,5,14)/0 (the router's coordinates (X,Y,Z) / the node's slot", text)
        for bad in ("6528", "-1", "x"):
            proc = run("describe", "hopper", "--node", bad)
            self.assertEqual(proc.returncode, 2, bad)
            self.assertIn(f"error: command line: at --node {bad}: expected a node id in 0..6527 (machine 'hopper'), "
                          f"got '{bad}'", proc.stderr)

    def test_describe_text_and_bad_route(self):
        self.assertIn("bisection_bandwidth_GBps", run("describe", "intrepid-512", check=True).stdout)
        self.assertEqual(run("describe", "hopper", "--route", "0", "99999").returncode, 2)

    def test_describe_provenance_gives_every_parameter_its_source_class(self):
        rows = {r["parameter"]: r for r in json.loads(run("describe", "hopper", "--provenance", "--json", check=True).stdout)}
        self.assertEqual(rows["nic.bte_setup"]["class"], "assumption")
        self.assertEqual(rows["nic.bte_bandwidth"]["class"], "cited")
        self.assertEqual(rows["runtimes.ugni.fma_bte_threshold"]["class"], "read in code")
        self.assertEqual(rows["runtimes.mpi.send_cpu"]["class"], "calibrated on K2")
        self.assertEqual(rows["runtimes.mpi.rdma_chunk"]["class"], "calibrated on K3")
        self.assertEqual(rows["topology.dims.0.size"]["class"], "cited")  # cited once for every dimension
        self.assertTrue(rows["nic.bte_setup"]["given"])
        self.assertFalse(rows["node.full_speed_threads"]["given"])  # the table's default
        self.assertIn("[E] BTE descriptor set-up", rows["nic.bte_setup"]["citation"])
        text = run("describe", "bgq-midplane", "--provenance", check=True).stdout
        self.assertRegex(run("describe", "clan-16", "--provenance", check=True).stdout, r"node\.nic_latency .* calibrated on KV1")
        self.assertRegex(text, r"runtimes\.pami\.rget_cpu +300ns +assumption")
        self.assertRegex(text, r"\n  \d+ assumption\n")


class Reference(unittest.TestCase):
    def test_reference_in_docs_is_current(self):
        generated = run("reference", check=True).stdout
        with open(os.path.join(ROOT, "docs", "scenario-reference.md")) as f:
            self.assertEqual(f.read(), generated,
                             "docs/scenario-reference.md is stale: run `build/torsim reference --out "
                             "docs/scenario-reference.md`")

    def test_help_and_version(self):
        self.assertEqual(run("--help").returncode, 0)
        self.assertIn("torsim run FILE", run("--help").stdout)
        self.assertRegex(run("--version").stdout, r"^torsim \d+\.\d+\.\d+")

    def test_every_command_prints_its_own_help(self):
        # Each command of torsim --help answers --help (and torsim help CMD) with its usage and
        # every option its synopsis lists, each explained on a line of its own.
        synopses = re.findall(r"^  torsim (\S+)(.*)$", run("--help", check=True).stdout, re.M)
        self.assertGreaterEqual({name for name, _ in synopses}, {"run", "merge", "describe", "reference", "schema",
                                                                 "validate", "bench"})
        for name, synopsis in synopses:
            with self.subTest(name):
                proc = run(name, "--help")
                self.assertEqual((proc.returncode, proc.stderr), (0, ""))
                self.assertTrue(proc.stdout.startswith(f"usage: torsim {name}"), proc.stdout)
                self.assertEqual(run("help", name, check=True).stdout, proc.stdout)
                for option in re.findall(r"\[(--[a-z-]+)", synopsis):
                    self.assertRegex(proc.stdout, rf"\n  (-\w, )?{option}\b.* \w", f"{name} {option}")
        self.assertEqual(run("frobnicate", "--help").returncode, 2)


@unittest.skipIf(SANITIZED, "timing figures under sanitizers mean nothing (the bench runs in the normal build)")
class Bench(Scratch):
    def test_quick_bench_reports_every_figure(self):
        # Structure only: timings are not asserted (a shared machine makes them flaky).
        path = os.path.join(self.dir, "bench.json")
        proc = run("bench", "--quick", "--markdown", "--json", path, check=True)
        self.assertIn("messages/s", proc.stdout)
        self.assertIn("% of a core", proc.stdout)
        # --markdown: one row of docs/performance.md's table per figure, quoting the command.
        rows = [line for line in proc.stdout.splitlines() if line.endswith("| `build/torsim bench --quick` |")]
        self.assertEqual([row.split(" ")[1] for row in rows], ["kernel", "random", "random", "memory"])
        self.assertIn("credit flow control", rows[2])
        with open(path) as f:
            doc = json.load(f)
        self.assertGreater(doc["kernel"]["events"], 0)
        # CPU time over wall time: a single-threaded measurement cannot have more than a core.
        self.assertTrue(0 < doc["kernel"]["core_share"] <= 1.05)
        for model in ("packet", "credit", "analytic"):
            figures = doc["random_4KiB_16x16x16"][model]
            self.assertEqual(figures["messages"], 16 * 4096)
            self.assertGreater(figures["messages_per_s"], 0)
            runs = figures["runs_messages_per_s"]
            self.assertEqual(len(runs), 3)
            self.assertEqual(sorted(runs)[1], figures["messages_per_s"])  # the median run
            self.assertTrue(0 < figures["core_share"] <= 1.05)
        self.assertEqual(doc["idle_ranks"]["blocked_ranks"], 65536)
        self.assertEqual([p["working_set_MiB"] for p in doc["memory_latency"]], [1, 2, 4, 8, 16, 64])
        self.assertTrue(all(p["ns_per_load"] > 0 for p in doc["memory_latency"]))

    def test_quick_nqueens_bench(self):
        path = os.path.join(self.dir, "nqueens.json")
        proc = run("bench", "--nqueens", "--quick", "--markdown", "--json", path, check=True)
        with open(path) as f:
            runs = json.load(f)["nqueens"]
        self.assertEqual([n["layer"] for n in runs], ["charm_ugni", "charm_mpi"])
        for n in runs:
            self.assertEqual((n["board"], n["ranks"]), (12, 384))
            self.assertGreater(n["messages"], 0)
            self.assertGreater(n["peak_resident_MB"], 0)
            self.assertTrue(0 < n["core_share"] <= 1.05)
        rows = [line for line in proc.stdout.splitlines() if line.startswith("| N-Queens")]
        self.assertEqual(len(rows), 2)
        self.assertTrue(all(row.endswith("| `build/torsim bench --nqueens --quick` |") for row in rows))

    def test_quick_fft_bench(self):
        path = os.path.join(self.dir, "fft.json")
        proc = run("bench", "--fft", "--quick", "--markdown", "--json", path, check=True)
        with open(path) as f:
            runs = json.load(f)["fft"]
        self.assertEqual([f["variant"] for f in runs], ["upc_slabs", "mpi_packed_slabs", "mpi_slabs"])
        for f in runs:
            self.assertEqual((f["planes"], f["ranks"]), (128, 512))
            self.assertGreater(f["messages"], 0)
            self.assertGreater(f["peak_resident_MB"], 0)
            self.assertAlmostEqual(f["rate_vs_upc_slabs"], f["messages_per_s"] / runs[0]["messages_per_s"])
        # MPI's rendezvous moves a message in four network messages, UPC's put in two.
        self.assertGreater(runs[2]["messages"], runs[0]["messages"])
        rows = [line for line in proc.stdout.splitlines() if line.startswith("| NAS FT")]
        self.assertEqual(len(rows), 3)
        self.assertTrue(all(row.endswith("| `build/torsim bench --fft --quick` |") for row in rows))

    def test_quick_trace_bench(self):
        path = os.path.join(self.dir, "trace.json")
        run("bench", "--trace", "--quick", "--json", path, check=True)
        with open(path) as f:
            figures = json.load(f)["trace"]
        self.assertEqual([r["format"] for r in figures["readers"]], ["ti", "dumpi", "otf2"])
        replay = figures["replay"]
        self.assertEqual((replay["ranks"], replay["records"]), (16, 16 * (2 + 500 * 11)))
        self.assertAlmostEqual(replay["replay_to_reader"], replay["records_per_s"] / replay["reader_records_per_s"])
        self.assertAlmostEqual(replay["records_per_cpu_s"], replay["records"] / replay["run_cpu_s"])
        # The recorded FFT replays into the run it was recorded from.
        recorded = figures["recorded_16k"]
        self.assertEqual((recorded["ranks"], recorded["planes"]), (512, 128))
        self.assertEqual(recorded["simulated_time_us"], recorded["recorded_run_simulated_time_us"])
        self.assertGreater(recorded["peak_resident_MB"], 0)

    def test_bad_bench_argument(self):
        self.assertEqual(run("bench", "--fast").returncode, 2)


if __name__ == "__main__":
    import harness
    harness.main()
