#!/usr/bin/env python3
"""The bad-input catalogue (tests/cli/bad_input_catalogue.py, docs/bad-input.md): each class ends
with exit code 2, a message naming the file, the JSON path and what was expected, and nothing
written anywhere (the scratch directory and $TMPDIR hold exactly what they held before).

Usage: test_bad_input.py TORSIM_BINARY  (run by CTest)
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import time
import unittest

import harness
from bad_input_catalogue import CASES, PINGPONG, markdown
from harness import ROOT, Scratch, run


def listing(top):
    return sorted(os.path.relpath(os.path.join(base, name), top)
                  for base, dirs, files in os.walk(top) for name in dirs + files)


class BadInput(Scratch):
    def setUp(self):
        super().setUp()
        self.tmp = self.path("tmp")  # the run's $TMPDIR: trace fragments would go there
        os.mkdir(self.tmp)
        self.out = self.path("out")
        with open(self.path("file"), "w") as f:
            f.write("a file where a directory should be\n")

    def fill(self, text):
        return text.replace("{dir}", self.dir).replace("{out}", self.out)

    def command(self, name, scenario_text=None):
        c = CASES[name]
        if "files" in c:
            c["files"](self.dir)  # the case's input files (traces), there before the command runs
        args = [self.fill(a) for a in c.get("args", [])]
        scenario = c.get("scenario", PINGPONG)
        if scenario is not None and scenario_text is None:
            scenario_text = scenario if isinstance(scenario, (str, bytes)) else self.fill(json.dumps(scenario))
        if scenario_text is not None:
            self.write("s.json", scenario_text)
            args = ["s.json", *args]
        if "--out" not in args and c.get("out", True):
            args += ["--out", self.out]
        return [c.get("command", "run"), *args]

    def expect_rejected(self, name, args, **popen):
        """Runs torsim; checks exit code 2, the message, and that nothing was written."""
        c = CASES[name]
        before = listing(self.dir)
        proc = run(*args, env=dict(os.environ, TMPDIR=self.tmp, **popen.pop("env", {})), cwd=self.dir, **popen)
        self.assertEqual(proc.returncode, 2, f"{name}: {proc.stderr}")
        self.assertTrue(proc.stderr.startswith(f"error: {self.fill(c['file'])}: at {self.fill(c['path'])}: "),
                        f"{name}: {proc.stderr}")
        self.assertIn(self.fill(c["expect"]), proc.stderr, name)
        self.assertEqual(proc.stderr.count("\n"), 1, f"{name}: one line: {proc.stderr}")
        self.assertEqual(listing(self.dir), before, f"{name}: something was written")

    def test_catalogue(self):
        simple = [name for name, c in CASES.items() if "special" not in c]
        self.assertGreaterEqual(len(CASES), 30)
        for name in simple:
            with self.subTest(name):
                self.expect_rejected(name, self.command(name))

    def test_every_special_case_has_its_test(self):
        for name, c in CASES.items():
            if "special" in c:
                self.assertTrue(callable(getattr(self, c["special"], None)), name)

    def test_docs_table_is_current(self):
        with open(os.path.join(ROOT, "docs", "bad-input.md")) as f:
            self.assertEqual(f.read(), markdown(), "docs/bad-input.md is stale: run "
                             "`python3 tests/cli/bad_input_catalogue.py > docs/bad-input.md`")

    @unittest.skipIf(os.geteuid() == 0, "root writes through permissions (the other output cases run as root)")
    def test_output_directory_without_permission(self):
        os.mkdir(self.path("locked"), 0o555)
        self.expect_rejected("out-not-writable", self.command("out-not-writable") + ["--out", self.path("locked", "out")])

    def test_write_that_fails(self):
        # A file size limit makes the write of results.json fail with EFBIG, as a full disk would.
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
        args = self.command("disk-full-write-fails", json.dumps(dict(PINGPONG, output={"link_stats": True})))
        self.expect_rejected("disk-full-write-fails", args, preexec_fn=limit)

    def test_full_disk(self):
        # A 64 KiB tmpfs, mounted in a mount namespace of its own, is the output directory's disk;
        # links.csv alone needs more. Skipped where namespaces cannot be made.
        if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
            self.skipTest("no user and mount namespaces here (unshare -rm)")
        disk = self.path("disk")
        os.mkdir(disk)
        self.out = os.path.join(disk, "out")
        scenario = self.write("s.json", dict(PINGPONG, output={"link_stats": True}))
        script = (f'mount -t tmpfs -o size=64k tmpfs "{disk}" || exit 99; '
                  f'"{harness.TORSIM}" run "{scenario}" --out "{self.out}" 2>&1; echo "exit=$?"; ls -A "{disk}"')
        proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True,
                              env=dict(os.environ, TMPDIR=self.tmp))
        if proc.returncode == 99:
            self.skipTest("cannot mount a tmpfs here")
        message, status, *left = proc.stdout.splitlines()
        c = CASES["disk-full-tmpfs"]
        self.assertTrue(message.startswith(f"error: command line: at --out {self.out}: "), message)
        self.assertIn(c["expect"], message)
        self.assertEqual(status, "exit=2")
        self.assertEqual(left, [], "the full disk holds nothing afterwards")
        self.assertEqual(os.listdir(self.tmp), [])

    def writers(self, target):
        """Every command that writes a file, writing into `target`: (option, command line)."""
        scenario = self.write("s.json", PINGPONG)
        return [("--out", ["reference", "--out", f"{target}/reference.md"]),
                ("--out", ["schema", "--out", f"{target}/schema.json"]),
                ("--report", ["validate", "--only", "K1", "--quick", "--no-plots", "--report", f"{target}/report"]),
                ("--trace", ["run", scenario, "--out", self.out, "--quiet", "--trace", f"{target}/trace.json"])]

    def expect_write_error(self, proc, option, args, reason):
        target = args[args.index(option) + 1]
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(f"error: command line: at {option} {target}: ", proc.stderr)
        self.assertIn(reason, proc.stderr)

    def test_every_command_write_that_fails(self):
        # A file size limit makes every write fail with EFBIG, as a full disk would; nothing stays.
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        written = self.path("written")
        os.mkdir(written)
        os.mkdir(os.path.join(written, "report"))
        for option, args in self.writers(written):
            with self.subTest(args[0]):
                proc = run(*args, env=dict(os.environ, TMPDIR=self.tmp), preexec_fn=limit)
                if args[0] == "run":  # results.json is larger than the limit too: the run fails first
                    self.assertEqual(proc.returncode, 2, proc.stderr)
                    self.assertIn("File too large", proc.stderr)
                else:
                    self.expect_write_error(proc, option, args, CASES["write-fails-any-command"]["expect"])
                self.assertEqual(listing(written), ["report"], "nothing written")
                self.assertFalse(os.path.exists(self.out))

    def test_every_command_on_a_full_disk(self):
        # A 64 KiB tmpfs filled to the last byte, in a mount namespace of its own.
        if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
            self.skipTest("no user and mount namespaces here (unshare -rm): cannot mount a tmpfs")
        disk = self.path("disk")
        os.mkdir(disk)
        for option, args in self.writers(disk):
            with self.subTest(args[0]):
                command = " ".join(f"'{a}'" for a in [harness.TORSIM, *args])
                script = (f'mount -t tmpfs -o size=64k tmpfs "{disk}" || exit 99; mkdir "{disk}/report"; '
                          f'cat /dev/zero > "{disk}/filler" 2>/dev/null; {command} 2>&1; echo "exit=$?"; ls -A "{disk}"')
                proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True,
                                      env=dict(os.environ, TMPDIR=self.tmp))
                if proc.returncode == 99:
                    self.skipTest("mounting a tmpfs is not permitted here")
                lines = proc.stdout.splitlines()
                status = lines.index(next(line for line in lines if line.startswith("exit=")))
                self.assertEqual(lines[status], "exit=2", proc.stdout)
                message = next(line for line in lines if line.startswith("error: "))
                self.assertTrue(message.startswith(f"error: command line: at {option} "), message)
                self.assertIn(CASES["disk-full-any-command"]["expect"], message)
                self.assertEqual(lines[status + 1:], ["filler", "report"], "the full disk holds nothing new")

    def test_standard_output_full(self):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([harness.TORSIM, "reference"], stdout=full, stderr=subprocess.PIPE, text=True)
        c = CASES["stdout-full"]
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr, f"error: {c['file']}: at {c['path']}: {c['expect']}\n")

    def test_run_killed_mid_way(self):
        # A long run with a trace: killed once its trace fragment is being written, it leaves no
        # output directory; SIGTERM and SIGINT also remove the fragment and the staging directory.
        # SIGKILL leaves the hidden staging directory (.out.partial-PID), which the next run into
        # the same place removes.
        scenario = self.write("s.json", dict(PINGPONG, workload=dict(PINGPONG["workload"], sizes=[8], iterations=10000000),
                                             output={"trace": {}}))
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
            with self.subTest(signal.Signals(sig).name):
                proc = subprocess.Popen([harness.TORSIM, "run", scenario, "--out", self.out, "--quiet"],
                                        env=dict(os.environ, TMPDIR=self.tmp), stderr=subprocess.DEVNULL)
                deadline = time.time() + 60
                while not os.listdir(self.tmp) and time.time() < deadline and proc.poll() is None:
                    time.sleep(0.05)
                self.assertIsNone(proc.poll(), "the run ended before it could be killed")
                time.sleep(0.3)
                proc.send_signal(sig)
                self.assertEqual(proc.wait(), -sig)
                self.assertFalse(os.path.exists(self.out), "no partial results")
                staging = [f for f in os.listdir(self.dir) if f.startswith(".out")]
                if sig != signal.SIGKILL:
                    self.assertEqual(os.listdir(self.tmp), [], "temporary files removed")
                    self.assertEqual(staging, [])
                else:
                    self.assertEqual(staging, [f".out.partial-{proc.pid}"])
                    run("run", self.write("t.json", PINGPONG), "--out", self.out, "--quiet", check=True)
                    self.assertEqual([f for f in os.listdir(self.dir) if f.startswith(".out")], [],
                                     "the next run removes what the killed one left")
                    shutil.rmtree(self.out)
                for f in os.listdir(self.tmp):
                    os.remove(os.path.join(self.tmp, f))

    def test_merge_errors(self):
        scenario = self.write("s.json", dict(PINGPONG, sweep={"workload.iterations": [1, 2, 3]}))
        other = self.write("t.json", dict(PINGPONG, sweep={"workload.iterations": [4, 5, 6]}))
        for name, file, shard in (("s0", scenario, "0/2"), ("s0b", scenario, "0/2"), ("s1", scenario, "1/2"),
                                  ("t1", other, "1/2"), ("whole", scenario, None)):
            run("run", file, "--out", self.path(name), "--quiet", *(["--shard", shard] if shard else []), check=True)
        # One file, shard 0 run by its absolute path, shard 1 by its relative one (in the scratch directory).
        run("run", "s.json", "--out", self.path("rel"), "--quiet", "--shard", "1/2", cwd=self.dir, check=True)
        for case, dirs in (("merge-missing-shard", ["s0"]), ("merge-shard-twice", ["s0", "s0b", "s1"]),
                           ("merge-not-a-shard", ["s0", "whole"]), ("merge-other-scenario", ["s0", "t1"]),
                           ("merge-file-by-another-path", ["s0", "rel"])):
            with self.subTest(case):
                self.expect_rejected(case, ["merge", *[self.path(d) for d in dirs], "--out", self.out])

    @unittest.skipIf(harness.SANITIZED, "the sanitizers reserve more address space than the limit")
    def test_machine_beyond_memory(self):
        cube = {"0": {"size": 128}, "1": {"size": 128}, "2": {"size": 128}}
        self.write("s.json", dict(PINGPONG, machine={"preset": "hopper", "topology": {"concentration": 1, "dims": cube}}))

        def limit_address_space(limit):
            return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        self.expect_rejected("machine-beyond-memory", ["run", "s.json", "--out", self.out],
                             preexec_fn=limit_address_space(2 << 30))
        # 1,024 leaves of 512 nodes under 512 spines (dmodk: no forwarding tables to count).
        tree = {"leaves": 1024, "nodes_per_leaf": 512, "spines": 512, "switch_ports": 1024, "routing": "dmodk"}
        self.write("s.json", dict(PINGPONG, machine={"preset": "qdr-cluster", "topology": tree}))
        self.expect_rejected("fat-tree-beyond-memory", ["run", "s.json", "--out", self.out],
                             preexec_fn=limit_address_space(512 << 20))

    def test_preset_chains(self):
        """A chain of 12 presets, each deriving from the next, is a machine (a depth limit of 8 called
        it a loop); a real loop names its members."""
        machines = self.path("data", "scenarios", "machines")
        os.makedirs(machines)
        shutil.copy(os.path.join(ROOT, "scenarios", "machines", "hopper.json"), machines)
        for k in range(12):
            self.write(os.path.join(machines, f"c{k}.json"), {"preset": f"c{k + 1}" if k < 11 else "hopper"})
        self.write(os.path.join(machines, "a.json"), {"preset": "b"})
        self.write(os.path.join(machines, "b.json"), {"preset": "a"})
        self.write("s.json", PINGPONG)
        env = {"TORSIM_DATA": self.path("data")}
        proc = run("describe", "c0", "--json", env=dict(os.environ, **env))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["nodes"], 6528)
        self.expect_rejected("preset-loop", ["run", "s.json", "--set", "machine=a", "--out", self.out], env=env)


if __name__ == "__main__":
    harness.main()
