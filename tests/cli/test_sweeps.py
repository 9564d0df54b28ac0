#!/usr/bin/env python3
"""Sweeps on several cores and across a cluster: `torsim run --jobs N` is byte-identical to a
serial run, and `torsim run --shard K/N` on every shard then `torsim merge` gives the single
run's outputs byte for byte (results.json up to its wall-clock figures, the CSVs, links.csv and
the trace).

Usage: test_sweeps.py TORSIM_BINARY  (run by CTest)
"""
import json
import os
import re
import signal
import subprocess
import time

from harness import ROOT, Scratch, read, run, without_wall

# Six points over two sweep keys, with links.csv and a trace, on the packet model; cheap enough
# to run several times.
SWEEP = {"machine": "hopper", "placement": {"node_list": [0, 2, 40]},
         "workload": {"name": "pingpong", "sizes": [8, 65536], "iterations": 2, "warmup": 1},
         "sweep": {"workload.peer": [1, 2], "machine.node.nic_latency": ["500ns", "700ns", "1us"]},
         "output": {"link_stats": True, "trace": {}}}


class Sweeps(Scratch):
    def run_into(self, name, *args):
        out = self.path(name)
        run("run", self.scenario, "--out", out, "--quiet", *args, check=True)
        return out

    def setUp(self):
        super().setUp()
        self.scenario = self.write("sweep.json", SWEEP)

    def assert_same_outputs(self, a, b):
        self.assertEqual(sorted(os.listdir(a)), sorted(os.listdir(b)))
        for name in os.listdir(a):
            if name == "results.json":
                self.assertEqual(without_wall(read(os.path.join(a, name))), without_wall(read(os.path.join(b, name))))
            else:
                self.assertEqual(read(os.path.join(a, name), "rb"), read(os.path.join(b, name), "rb"), name)

    def test_parallel_points_are_byte_identical_to_a_serial_run(self):
        serial = self.run_into("serial")
        self.assertEqual(sorted(os.listdir(serial)), [".torsim-files", "latency.csv", "latency_breakdown.csv", "links.csv", "results.json", "trace.json"])
        self.assertEqual(len(self.results(serial)["points"]), 6)
        self.assert_same_outputs(serial, self.run_into("parallel", "--jobs", "3"))

    def test_merged_shards_are_byte_identical_to_a_single_run(self):
        single = self.run_into("single")
        shards = [self.run_into(f"shard{k}", "--shard", f"{k}/4") for k in range(4)]
        points = [self.results(s)["shard"]["points"] for s in shards]
        self.assertEqual(points, [[0, 4], [1, 5], [2], [3]])  # round robin
        merged = self.path("merged")
        run("merge", *reversed(shards), "--out", merged, "--quiet", check=True)
        self.assert_same_outputs(single, merged)
        self.assertNotIn("shard", self.results(merged))

    def test_a_shard_with_no_point_and_a_sharded_parallel_run(self):
        # More shards than points: the last shards run nothing and still merge.
        shards = [self.run_into(f"s{k}", "--shard", f"{k}/8", "--jobs", "2") for k in range(8)]
        self.assertEqual(self.results(shards[7])["points"], [])
        merged = self.path("merged")
        run("merge", *shards, "--out", merged, "--quiet", check=True)
        self.assert_same_outputs(self.run_into("single"), merged)

    def test_sbatch_example_runs_its_commands(self):
        # The example's shard and merge lines, with Slurm's variables set by hand.
        script = os.path.join(ROOT, "scripts", "sweep.sbatch")
        text = read(script)
        self.assertIn("#SBATCH --array=0-", text)
        self.assertIn("--shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\"", text)
        out = self.path("slurm")
        env = dict(os.environ, TORSIM=os.environ["TORSIM"], SCENARIO=self.scenario, OUT=out, SLURM_ARRAY_TASK_COUNT="2")
        for task in ("0", "1"):
            subprocess.run(["bash", script], env=dict(env, SLURM_ARRAY_TASK_ID=task), check=True, capture_output=True)
        subprocess.run(["bash", script, "merge"], env=env, check=True, capture_output=True)
        self.assert_same_outputs(self.run_into("single"), os.path.join(out, "merged"))

    def test_set_adds_a_sweep_key_that_is_a_dotted_path(self):
        # --set sweep.workload.iterations=[1,2] is the sweep key "workload.iterations", not a
        # nested object (which was "expected a non-empty list of values").
        out = self.run_into("set", "--set", "sweep={}", "--set", "sweep.workload.iterations=[1,2]")
        doc = json.loads(read(os.path.join(out, "results.json")))
        self.assertEqual([p["sweep"] for p in doc["points"]], [{"workload.iterations": 1}, {"workload.iterations": 2}])

    def test_a_key_one_point_reads_is_read_by_the_sweep(self):
        # receive_window is read by the mpi_slabs points only: the sweep reads it. (A key no point
        # reads is an error: the bad-input case fft-receive-window-unread-by-every-point.)
        fft = {"machine": "intrepid-64", "placement": {"nodes": 4, "mode": "VN"}, "runtime": {"layer": "mpi_dcmf"},
               "workload": {"name": "fft3d", "variant": "mpi_slabs", "nx": 64, "ny": 32, "nz": 32, "receive_window": 4},
               "sweep": {"workload.variant": ["mpi_slabs", "mpi_packed_slabs"]}}
        out = self.path("fft")
        run("run", self.write("fft.json", fft), "--out", out, "--quiet", check=True)
        self.assertEqual([p["sweep"] for p in self.results(out)["points"]],
                         [{"workload.variant": "mpi_slabs"}, {"workload.variant": "mpi_packed_slabs"}])

    def test_a_router_key_is_read_by_the_points_with_credit_flow_control(self):
        # The router's keys are read by credit flow control alone: a sweep over one is read when
        # some point has credits (the bad-input cases router-key-*: an error when none has), and
        # its value moves the credit points' results.
        doc = {"machine": "bgq-32", "placement": {"nodes": 32},
               "workload": {"name": "traffic", "pattern": "uniform_random", "size": "4KiB", "messages": 40,
                            "window": 8},
               "sweep": {"network.flow_control": ["none", "credit"], "machine.router.buffer_per_vc": ["1KiB", "8KiB"]}}
        out = self.path("router")
        run("run", self.write("router.json", doc), "--out", out, "--quiet", check=True)
        done = {(p["sweep"]["network.flow_control"], p["sweep"]["machine.router.buffer_per_vc"]):
                p["metrics"]["completion_time_us"] for p in self.results(out)["points"]}
        self.assertEqual(done[("none", "1KiB")], done[("none", "8KiB")], "without credits the buffer is not read")
        self.assertGreater(done[("credit", "1KiB")], done[("credit", "8KiB")],
                           "with credits a smaller buffer holds the senders longer")

    def test_progress_lines_when_stderr_is_not_a_terminal(self):
        plain = self.run_into("plain")
        out = self.path("progress")
        proc = run("run", self.scenario, "--out", out, "--progress", "0")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("progress: ")]
        self.assertTrue(any(line.startswith("progress: 6/6 points done") for line in lines), proc.stderr)
        self.assertTrue(all(re.match(r"progress: \d+/6 points done", line) for line in lines), lines)
        self.assert_same_outputs(plain, out)  # stderr only: the results are the same
        quiet = run("run", self.scenario, "--out", self.path("quiet"), "--progress", "0", "--quiet")
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertNotIn("progress", quiet.stderr)
        bad = run("run", self.scenario, "--out", self.path("bad"), "--progress", "soon")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--progress soon: expected seconds between progress lines", bad.stderr)

    def test_console_summary_sorts_points_by_value_and_prints_sizes_with_units(self):
        scenario = self.write("sizes.json", {"machine": "hopper", "placement": {"node_list": [0, 2]},
                                             "workload": {"name": "pingpong", "sizes": [8], "iterations": 2},
                                             "sweep": {"machine.node.nic_latency": ["1us", "500ns", "700ns"]}})
        proc = run("run", scenario, "--out", self.path("sizes"), "--set", "workload.sizes=[1048576]")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("1MiB", proc.stdout)
        self.assertNotIn("1.04858e+06", proc.stdout)
        summary = proc.stdout[proc.stdout.index("sweep summary: 3 points, by sweep value"):]
        order = [summary.index(v) for v in ("500ns", "700ns", "1us")]
        self.assertEqual(order, sorted(order), summary)


# Random traffic: what each rank sends depends on the seed.
RANDOM = {"machine": "hopper", "placement": {"nodes": 8},
          "workload": {"name": "traffic", "pattern": "random_permutation", "size": "4KiB", "messages": 2}}



class SeedSweep(Scratch):
    def test_each_point_runs_with_its_own_seed(self):
        # A sweep over seed gives each point what --set seed=N gives the same scenario alone.
        sweep = self.write("sweep.json", dict(RANDOM, sweep={"seed": [1, 2, 3]}))
        run("run", sweep, "--out", self.path("sweep"), "--quiet", check=True)
        points = self.results(self.path("sweep"))["points"]
        alone = self.write("alone.json", RANDOM)
        for seed, point in zip((1, 2, 3), points):
            out = self.path(f"seed{seed}")
            run("run", alone, "--out", out, "--set", f"seed={seed}", "--quiet", check=True)
            self.assertEqual(point["sweep"], {"seed": seed})
            self.assertEqual(point["metrics"], self.results(out)["points"][0]["metrics"], f"seed {seed}")
        self.assertGreater(len({json.dumps(p["metrics"], sort_keys=True) for p in points}), 1,
                           "different seeds draw different permutations")


def alive(pid):
    """Running (a zombie whose parent died is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return found


class Interrupt(Scratch):
    def test_an_interrupted_parallel_run_ends_its_children_and_says_so(self):
        # Two long points on two children; the signal goes to the parent alone.
        scenario = self.write("long.json", dict(SWEEP, workload=dict(SWEEP["workload"], sizes=[8], iterations=10000000),
                                                sweep={"workload.peer": [1, 2]}, output={}))
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal.Signals(sig).name):
                proc = subprocess.Popen([os.environ["TORSIM"], "run", scenario, "--out", self.path("out"), "--jobs", "2",
                                         "--quiet"], stderr=subprocess.PIPE, text=True, start_new_session=True)
                deadline = time.time() + 60
                while len(children(proc.pid)) < 2 and time.time() < deadline:
                    time.sleep(0.05)
                running = children(proc.pid)
                self.assertEqual(len(running), 2, "both points started")
                proc.send_signal(sig)
                self.assertEqual(proc.wait(), -sig)
                self.assertIn(f"error: interrupted ({signal.Signals(sig).name})", proc.stderr.read())
                deadline = time.time() + 10
                while any(alive(c) for c in running) and time.time() < deadline:
                    time.sleep(0.05)
                self.assertEqual([c for c in running if alive(c)], [], "the children ended with the parent")
                self.assertFalse(os.path.exists(self.path("out")))
                self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".out")], [], "staging removed")


if __name__ == "__main__":
    import harness
    harness.main()
