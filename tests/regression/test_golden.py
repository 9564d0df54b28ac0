#!/usr/bin/env python3
"""Tests of the golden regression harness itself (tests/regression/golden.py).

Pure functions are tested directly; check and update run against a fake torsim in a temporary
repository, so nothing in the real tree is written."""
import contextlib
import copy
import io
import json
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden  # noqa: E402

RESULTS = {
    "torsim_version": "0.1.0",
    "scenario": {"name": "s", "spec": {"description": "text"}},
    "wall": {"wall_time_s": 1.5},
    "machine": {"name": "m", "nodes": 4, "description": "four nodes"},
    "points": [{
        "sweep": {}, "job": {"ranks": 2}, "blocked_processes": 0, "simulated_time_us": 12.5,
        "metrics": {"latency_us": 1.25, "zero_metric": 0},
        "series": {"latency": {"columns": ["size_bytes", "latency_us"],
                               "rows": [[8.0, 1.0], [4096.0, 2.0], [1048576.0, 3.0]]}},
        "counters": {"events": 100},
    }],
}


def quietly(function, *args):
    """function(*args) with its stdout and stderr captured: (result, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = function(*args)
    return result, out.getvalue(), err.getvalue()


class Extract(unittest.TestCase):
    def test_drops_wall_version_and_scenario(self):
        doc = golden.extract(RESULTS)
        self.assertEqual(set(doc), {"machine", "points"})
        self.assertEqual(set(doc["points"][0]), set(golden.POINT_KEYS))
        self.assertNotIn("wall", json.dumps(doc))
        self.assertEqual(doc["points"][0]["metrics"]["latency_us"], 1.25)

    def test_drops_the_machine_description_but_keeps_the_machine(self):
        doc = golden.extract(RESULTS)
        self.assertEqual(doc["machine"], {"name": "m", "nodes": 4})


class Diff(unittest.TestCase):
    def setUp(self):
        self.old = golden.extract(RESULTS)
        self.new = copy.deepcopy(self.old)
        self.point = self.new["points"][0]

    def test_identical_documents_have_no_diff(self):
        self.assertEqual(golden.diff(self.old, self.new), [])

    def test_a_wrong_metric_is_found_with_its_change(self):
        self.point["metrics"]["latency_us"] = 1.5
        self.assertEqual(golden.diff(self.old, self.new),
                         ["points[0].metrics.latency_us: 1.25 -> 1.5 (+20 %)"])

    def test_a_series_cell_names_its_row_and_column(self):
        self.point["series"]["latency"]["rows"][1][1] = 2.5
        self.assertEqual(golden.diff(self.old, self.new),
                         ["points[0].series.latency[size_bytes=4096].latency_us: 2.0 -> 2.5 (+25 %)"])

    def test_a_large_row_key_is_printed_in_full(self):
        self.point["series"]["latency"]["rows"][2][1] = 6.0
        self.assertIn("[size_bytes=1048576].latency_us", golden.diff(self.old, self.new)[0])

    def test_rows_with_a_repeated_first_column_are_named_by_more_columns(self):
        flood = {"columns": ["links", "size_bytes", "MBps"], "rows": [[1.0, 8.0, 5.0], [1.0, 64.0, 9.0]]}
        changed = copy.deepcopy(flood)
        changed["rows"][1][2] = 10.0
        self.assertEqual(golden.diff({"s": flood}, {"s": changed}),
                         ["s[links=1,size_bytes=64].MBps: 9.0 -> 10.0 (+11.11 %)"])

    def test_added_and_removed_keys(self):
        self.point["metrics"]["bandwidth"] = 3
        del self.point["metrics"]["zero_metric"]
        self.assertEqual(golden.diff(self.old, self.new),
                         ["points[0].metrics.bandwidth: added (3)",
                          "points[0].metrics.zero_metric: removed (was 0)"])

    def test_list_length_changes(self):
        self.point["series"]["latency"]["rows"].append([65536.0, 9.0])
        self.new["points"].append(copy.deepcopy(self.point))
        lines = golden.diff(self.old, self.new)
        self.assertIn("points: 1 elements -> 2 elements", lines)
        self.assertIn("points[0].series.latency.rows: 3 rows -> 4 rows", lines)

    def test_a_zero_old_value_does_not_divide_by_zero(self):
        self.point["metrics"]["zero_metric"] = 1
        self.assertEqual(golden.diff(self.old, self.new),
                         ["points[0].metrics.zero_metric: 0 -> 1 (was 0)"])

    def test_a_changed_number_type_is_a_change(self):
        self.point["counters"]["events"] = 100.0
        self.assertEqual(len(golden.diff(self.old, self.new)), 1)

    def test_the_printout_is_capped_with_a_count_of_the_rest(self):
        lines = [f"line {i}" for i in range(100)]
        shown = golden.capped(lines, 40)
        self.assertEqual(len(shown), 41)
        self.assertEqual(shown[-1], "... and 60 more")
        self.assertEqual(golden.capped(lines[:3], 40), lines[:3])


class Reason(unittest.TestCase):
    def test_update_refuses_a_missing_empty_or_multi_line_reason(self):
        for reason in (None, "", "   ", "two\nlines", "trailing newline\n", "carriage\rreturn"):
            with self.subTest(reason=reason):
                status, out, err = quietly(golden.update, "no-such-torsim", reason, [])
                self.assertEqual(status, 2)
                self.assertIn("--reason", err)

    def test_the_command_line_refuses_update_without_reason(self):
        status, _, err = quietly(golden.main, ["golden.py", "update", "no-such-torsim"])
        self.assertEqual(status, 2)
        self.assertIn("refused", err)

    def test_update_golden_is_the_update_command(self):
        command, args = golden.parse(["--update-golden", "torsim", "--reason", "why", "scenarios/a.json"])
        self.assertEqual((command, args.reason, args.scenarios), ("update", "why", ["scenarios/a.json"]))
        status, _, err = quietly(golden.main, ["golden.py", "--update-golden", "no-such-torsim"])
        self.assertEqual(status, 2)
        self.assertIn("refused", err)

    def test_changelog_line(self):
        line = golden.changelog_line("faster links", ["scenarios/a.json"], False, today="2026-01-02")
        self.assertEqual(line, "- 2026-01-02: faster links (1 goldens: scenarios/a.json)\n")
        self.assertEqual(golden.changelog_line("x", ["a", "b"], True, today="2026-01-02"),
                         "- 2026-01-02: x (2 goldens: all)\n")


FAKE_TORSIM = textwrap.dedent("""\
    #!{python}
    # Writes results.json from the scenario's "results" field; a scenario with "fail" fails.
    # --set NAME=VALUE sets the first point's metric NAME to the JSON VALUE.
    import json, os, sys
    scenario, out = sys.argv[2], sys.argv[4]
    spec = json.load(open(scenario))
    if spec.get("fail"):
        sys.stderr.write("error: simulated failure\\n")
        sys.exit(3)
    sets = [arg for flag, arg in zip(sys.argv, sys.argv[1:]) if flag == "--set"]
    for name, value in (s.split("=", 1) for s in sets):
        spec["results"]["points"][0]["metrics"][name] = json.loads(value)
    os.makedirs(out, exist_ok=True)
    json.dump(spec["results"], open(os.path.join(out, "results.json"), "w"))
    """)


class CheckAndUpdate(unittest.TestCase):
    """check and update against a fake torsim in a temporary repository."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="golden-test-")
        self.root = self.tmp.name
        self.torsim = os.path.join(self.root, "fake-torsim")
        self.write("fake-torsim", FAKE_TORSIM.format(python=sys.executable))
        os.chmod(self.torsim, 0o755)
        self.scenario("raw/a.json", RESULTS)
        self.scenario("raw/b.json", RESULTS)
        self.write("scenarios/machines/m.json", "{}")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, relative, text):
        path = os.path.join(self.root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def read(self, relative):
        with open(os.path.join(self.root, relative)) as f:
            return f.read()

    def scenario(self, relative, results, **extra):
        self.write(f"scenarios/{relative}", json.dumps({"results": results, **extra}))

    def update(self, reason="because", scenarios=()):
        return quietly(golden.update, self.torsim, reason, list(scenarios), self.root)

    def check(self, scenario):
        return quietly(golden.check, self.torsim, scenario, self.root)

    def test_list_leaves_out_machine_presets(self):
        self.assertEqual(golden.scenario_files(self.root), ["scenarios/raw/a.json", "scenarios/raw/b.json"])

    def test_golden_path_mirrors_the_scenario_path(self):
        self.assertEqual(golden.golden_path("scenarios/raw/a.json", self.root),
                         os.path.join(self.root, "validation", "golden", "raw", "a.json"))

    def test_a_missing_golden_fails_and_says_how_to_create_it(self):
        status, out, _ = self.check("scenarios/raw/a.json")
        self.assertEqual(status, 1)
        self.assertIn("golden.py update", out)

    def test_update_writes_sorted_goldens_and_one_changelog_line(self):
        status, out, _ = self.update("initial goldens")
        self.assertEqual(status, 0)
        text = self.read("validation/golden/raw/a.json")
        self.assertEqual(text, json.dumps(golden.extract(RESULTS), indent=2, sort_keys=True) + "\n")
        changelog = self.read("validation/CHANGELOG.md")
        self.assertTrue(changelog.startswith(golden.CHANGELOG_HEADER))
        self.assertEqual(changelog[len(golden.CHANGELOG_HEADER):].count("\n"), 1)
        self.assertRegex(changelog, r"- \d{4}-\d\d-\d\d: initial goldens \(2 goldens: all\)\n$")
        self.assertEqual(self.check("scenarios/raw/a.json")[0], 0)

    def test_an_unchanged_update_adds_no_changelog_line(self):
        self.update()
        before = self.read("validation/CHANGELOG.md")
        status, out, _ = self.update("again")
        self.assertEqual(status, 0)
        self.assertIn("unchanged  scenarios/raw/a.json", out)
        self.assertEqual(self.read("validation/CHANGELOG.md"), before)

    def test_a_moved_output_fails_check_and_an_update_names_only_what_changed(self):
        self.update()
        moved = copy.deepcopy(RESULTS)
        moved["points"][0]["metrics"]["latency_us"] = 2.5
        moved["wall"] = {"wall_time_s": 99}  # wall clock never matters
        self.scenario("raw/b.json", moved)
        self.assertEqual(self.check("scenarios/raw/a.json")[0], 0)
        status, out, _ = self.check("scenarios/raw/b.json")
        self.assertEqual(status, 1)
        self.assertIn("points[0].metrics.latency_us: 1.25 -> 2.5 (+100 %)", out)
        status, out, _ = self.update("slower links")
        self.assertIn("updated    scenarios/raw/b.json", out)
        self.assertTrue(self.read("validation/CHANGELOG.md").endswith(
            ": slower links (1 goldens: scenarios/raw/b.json)\n"))

    def test_a_torsim_failure_is_reported_with_its_stderr_and_writes_nothing(self):
        self.scenario("raw/b.json", RESULTS, fail=True)
        with self.assertRaisesRegex(golden.GoldenError, "simulated failure"):
            self.update()
        self.assertFalse(os.path.exists(os.path.join(self.root, "validation")))

    def test_a_machine_preset_is_not_a_scenario(self):
        with self.assertRaises(golden.GoldenError):
            golden.relative_scenario("scenarios/machines/m.json", self.root)

    def reduce(self, scenarios):
        self.write("tests/regression/reduced.json", json.dumps({"scenarios": scenarios}))

    def test_a_reduced_golden_runs_with_its_overrides_and_records_them(self):
        self.reduce({"scenarios/raw/b.json": {"set": ["latency_us=7.5"], "why": "too long in full"}})
        status, out, _ = self.update()
        self.assertEqual(status, 0)
        self.assertIn("updated    scenarios/raw/b.json (run with --set latency_us=7.5: too long in full)", out)
        reduced = json.loads(self.read("validation/golden/raw/b.json"))
        self.assertEqual(reduced["points"][0]["metrics"]["latency_us"], 7.5)
        self.assertEqual(reduced[golden.OVERRIDES_KEY], ["latency_us=7.5"])
        self.assertNotIn(golden.OVERRIDES_KEY, json.loads(self.read("validation/golden/raw/a.json")))
        status, out, _ = self.check("scenarios/raw/b.json")
        self.assertEqual(status, 0)
        self.assertIn("scenarios/raw/b.json (run with --set latency_us=7.5: too long in full): "
                      "model outputs match", out)

    def test_a_change_of_the_overrides_shows_in_check(self):
        self.reduce({"scenarios/raw/b.json": {"set": ["latency_us=7.5"], "why": "too long in full"}})
        self.update()
        self.reduce({})
        status, out, _ = self.check("scenarios/raw/b.json")
        self.assertEqual(status, 1)
        self.assertIn('golden_overrides: removed (was ["latency_us=7.5"])', out)
        self.assertIn("points[0].metrics.latency_us: 7.5 -> 1.25", out)

    def test_a_malformed_reduced_table_is_an_error_naming_the_entry(self):
        good = {"set": ["workload.nz=128"], "why": "class D costs minutes"}
        cases = {
            "[]": 'expected an object whose "scenarios" is an object',
            '{"scenarios": []}': 'expected an object whose "scenarios" is an object',
            "{": "not valid JSON",
        }
        entries = [
            ({"raw/b.json": good}, 'scenarios."raw/b.json": expected the path of a scenario'),
            ({"scenarios/raw/zz.json": good}, 'scenarios."scenarios/raw/zz.json": expected the path'),
            ({"scenarios/machines/m.json": good}, 'scenarios."scenarios/machines/m.json": expected the path'),
            ({"scenarios/raw/b.json": {"set": ["a=1"]}}, 'keys "set" and "why" only'),
            ({"scenarios/raw/b.json": {**good, "note": "x"}}, 'keys "set" and "why" only'),
            ({"scenarios/raw/b.json": {**good, "set": []}}, '"scenarios/raw/b.json".set: expected a non-empty list'),
            ({"scenarios/raw/b.json": {**good, "set": "a=1"}}, ".set: expected a non-empty list"),
            ({"scenarios/raw/b.json": {**good, "set": ["nz 128"]}}, '.set: expected a non-empty list of "path=value"'),
            ({"scenarios/raw/b.json": {**good, "why": ""}}, '"scenarios/raw/b.json".why: expected one non-empty line'),
            ({"scenarios/raw/b.json": {**good, "why": "two\nlines"}}, ".why: expected one non-empty line"),
        ]
        cases.update({json.dumps({"scenarios": entry}): message for entry, message in entries})
        for text, message in cases.items():
            with self.subTest(table=text):
                self.write("tests/regression/reduced.json", text)
                with self.assertRaisesRegex(golden.GoldenError, r"^tests/regression/reduced\.json: .*"):
                    self.check("scenarios/raw/a.json")
                with self.assertRaises(golden.GoldenError) as raised:
                    self.update()
                self.assertIn(message, str(raised.exception))
                self.assertFalse(os.path.exists(os.path.join(self.root, "validation")))

    def test_the_repository_table_is_well_formed(self):
        reduced = golden.reduced_runs()
        fft = {"scenarios/bgp/scale/fft-upc.json", "scenarios/bgp/scale/fft-mpi.json"}
        self.assertLessEqual(fft, set(reduced))


if __name__ == "__main__":
    unittest.main(verbosity=1)
