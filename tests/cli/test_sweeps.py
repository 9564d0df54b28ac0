#!/usr/bin/env python3
"""Sweeps on several cores and across a cluster: `torsim run --jobs N` is byte-identical to a
serial run, and `torsim run --shard K/N` on every shard then `torsim merge` gives the single
run's outputs byte for byte (results.json up to its wall-clock figures, the CSVs, links.csv and
the trace).

Usage: test_sweeps.py TORSIM_BINARY  (run by CTest)
"""
import json
import os
import subprocess

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


if __name__ == "__main__":
    import harness
    harness.main()
