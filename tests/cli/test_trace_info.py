#!/usr/bin/env python3
"""`torsim trace-info` on every shipped trace (tests/data/traces/): ranks, hosts, calls by type
with counts and bytes, the recorded span and each call type's coverage, as text and as JSON.

Usage: test_trace_info.py TORSIM_BINARY  (run by CTest)
"""
import json
import os
import unittest

import harness
from harness import ROOT, run

TRACES = os.path.join(ROOT, "tests", "data", "traces")
SHIPPED = {  # path under tests/data/traces -> format, ranks, calls
    "ti-simgrid-actions/actions_bcast.txt": ("ti", 3, 21),
    "ti-simgrid-actions/split_traces": ("ti", 2, 12),
    "dumpi-testtrace": ("dumpi", 4, 36),
    "dumpi-amg27-hopper": ("dumpi", 27, 37389),
    "otf2-ember-bcast": ("otf2", 4, 16),
    "otf2-stencil4d": ("otf2", 32, 1216),
    "otf2-sstmacro-coverage": ("otf2", 10, 7010),
}


def info(path, *args):
    proc = run("trace-info", os.path.join(TRACES, path), "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


class TraceInfo(unittest.TestCase):
    def test_every_shipped_trace(self):
        for path, (fmt, ranks, calls) in SHIPPED.items():
            with self.subTest(path):
                doc = info(path)
                self.assertEqual(doc["format"], fmt)
                self.assertEqual(doc["ranks"], ranks)
                self.assertEqual(doc["records"], calls)
                self.assertEqual(sum(row["count"] for row in doc["calls"]), calls)
                for row in doc["calls"]:
                    self.assertIn(row["support"], ("modelled", "approximated", "unsupported"))
                    self.assertTrue(row["how"])
                self.assertEqual(doc["recorded_span_us"] is None, fmt == "ti")
                text = run("trace-info", os.path.join(TRACES, path))
                self.assertEqual(text.returncode, 0, text.stderr)
                for row in doc["calls"]:
                    self.assertIn(row["call"], text.stdout)

    def test_hosts_and_placement(self):
        amg = info("dumpi-amg27-hopper")
        self.assertEqual(amg["placement"]["hosts"], [{"host": "nid05840", "ranks": "0-23"},
                                                      {"host": "nid05841", "ranks": "24-26"}])
        self.assertEqual(amg["placement"]["found"], ["host names"])
        stencil = info("otf2-stencil4d")
        self.assertEqual([h["host"] for h in stencil["placement"]["hosts"]], ["quartz1", "quartz2"])
        self.assertEqual(stencil["placement"]["hosts"][1]["ranks"], ",".join(str(r) for r in range(1, 32, 2)))
        self.assertEqual(info("ti-simgrid-actions/actions_bcast.txt")["placement"]["found"], [])
        mesh = info("dumpi-testtrace-mesh")["placement"]
        self.assertEqual((mesh["ranks_with_mesh_coordinates"], mesh["found"]), (4, ["mesh coordinates", "host names"]))

    def test_calls_bytes_and_coverage(self):
        amg = {row["call"]: row for row in info("dumpi-amg27-hopper")["calls"]}
        self.assertEqual(amg["isend"]["count"], amg["irecv"]["count"])
        self.assertEqual(amg["isend"]["bytes"], amg["irecv"]["bytes"])  # every message sent is received
        self.assertGreater(amg["waitall"]["recorded_us"], 0)
        coverage = info("otf2-sstmacro-coverage")
        rows = {row["call"]: row for row in coverage["calls"]}
        self.assertEqual(rows["MPI_Ialltoall"]["support"], "unsupported")  # MPI-3: a call of no known type
        self.assertEqual(coverage["unsupported_calls"],
                         sum(r["count"] for r in coverage["calls"] if r["support"] == "unsupported"))
        stencil = {row["call"]: row for row in info("otf2-stencil4d")["calls"]}
        self.assertEqual(stencil["send"]["bytes"], 512 * 128 * 1024)

    def test_format_forced(self):
        self.assertEqual(info("dumpi-testtrace/testtrace-0001.bin", "--format", "dumpi")["ranks"], 4)
        proc = run("trace-info", os.path.join(TRACES, "dumpi-testtrace/testtrace.meta"), "--format", "ti")
        self.assertEqual(proc.returncode, 2)  # a .meta read as an action file
        self.assertIn("error: ", proc.stderr)

    def test_command_line(self):
        self.assertEqual(run("trace-info", "--help").returncode, 0)
        self.assertIn("usage: torsim trace-info", run("trace-info", "--help").stdout)
        for args in ([], ["--jsn", "x"], ["a", "b"]):
            with self.subTest(args):
                proc = run("trace-info", *args)
                self.assertEqual(proc.returncode, 2)
                self.assertTrue(proc.stderr.startswith("error: "), proc.stderr)


if __name__ == "__main__":
    harness.main()
