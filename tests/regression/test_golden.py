#!/usr/bin/env python3
"""Tests of the golden regression harness itself (tests/regression/golden.py)."""
import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden  # noqa: E402

RESULTS = {
    "torsim_version": "0.1.0",
    "scenario": {"name": "s", "spec": {"description": "text"}},
    "wall": {"wall_time_s": 1.5},
    "machine": {"name": "m", "nodes": 4},
    "points": [{
        "sweep": {}, "job": {"ranks": 2}, "blocked_processes": 0, "simulated_time_us": 12.5,
        "metrics": {"latency_us": 1.25, "zero_metric": 0},
        "series": {"latency": {"columns": ["size_bytes", "latency_us"], "rows": [[8, 1.0], [4096, 2.0]]}},
        "counters": {"events": 100},
    }],
}


class Extract(unittest.TestCase):
    def test_drops_wall_version_and_scenario(self):
        doc = golden.extract(RESULTS)
        self.assertEqual(set(doc), {"machine", "points"})
        self.assertNotIn("wall", doc)
        self.assertEqual(doc["points"][0]["metrics"]["latency_us"], 1.25)


class Diff(unittest.TestCase):
    def setUp(self):
        self.old = golden.extract(RESULTS)
        self.new = copy.deepcopy(self.old)

    def test_identical_documents_have_no_diff(self):
        self.assertEqual(golden.diff(self.old, self.new), [])

    def test_a_wrong_metric_is_found_with_its_change(self):
        self.new["points"][0]["metrics"]["latency_us"] = 1.5
        lines = golden.diff(self.old, self.new)
        self.assertEqual(len(lines), 1)
        self.assertIn("points[0].metrics.latency_us", lines[0])
        self.assertIn("1.25 -> 1.5", lines[0])
        self.assertIn("+20 %", lines[0])

    def test_a_series_cell_names_its_row_and_column(self):
        self.new["points"][0]["series"]["latency"]["rows"][1][1] = 2.5
        lines = golden.diff(self.old, self.new)
        self.assertEqual(lines, ["points[0].series.latency[size_bytes=4096].latency_us: 2.0 -> 2.5 (+25 %)"])

    def test_added_and_removed_keys(self):
        self.new["points"][0]["metrics"]["bandwidth"] = 3
        del self.new["points"][0]["metrics"]["zero_metric"]
        lines = golden.diff(self.old, self.new)
        self.assertTrue(any("metrics.bandwidth: added" in l for l in lines))
        self.assertTrue(any("metrics.zero_metric: removed" in l for l in lines))

    def test_list_length_changes(self):
        self.new["points"][0]["series"]["latency"]["rows"].append([65536, 9.0])
        self.new["points"].append(copy.deepcopy(self.new["points"][0]))
        lines = golden.diff(self.old, self.new)
        self.assertIn("points: 1 elements -> 2 elements", lines)
        self.assertTrue(any("2 rows -> 3 rows" in l for l in lines))

    def test_a_zero_old_value_does_not_divide_by_zero(self):
        self.new["points"][0]["metrics"]["zero_metric"] = 1
        lines = golden.diff(self.old, self.new)
        self.assertIn("was 0", lines[0])


class Update(unittest.TestCase):
    def test_a_reason_is_required_and_one_line(self):
        self.assertEqual(golden.update("torsim", None, []), 2)
        self.assertEqual(golden.update("torsim", "   ", []), 2)
        self.assertEqual(golden.update("torsim", "two\nlines", []), 2)

    def test_changelog_line(self):
        line = golden.changelog_line("faster links", ["scenarios/a.json"], False, today="2026-01-02")
        self.assertEqual(line, "- 2026-01-02: faster links (1 goldens: scenarios/a.json)\n")
        self.assertIn("all)", golden.changelog_line("x", ["a", "b"], True))

    def test_scenarios_exclude_machine_presets(self):
        files = golden.scenario_files()
        self.assertTrue(files)
        self.assertFalse(any("/machines/" in f for f in files))
        self.assertTrue(golden.golden_path("scenarios/raw/x.json").endswith("validation/golden/raw/x.json"))


if __name__ == "__main__":
    unittest.main(verbosity=1)
