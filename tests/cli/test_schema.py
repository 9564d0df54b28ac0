#!/usr/bin/env python3
"""The JSON Schema of scenario files (`torsim schema`): current in docs/schema/, a valid draft-07
schema, every shipped scenario and machine preset valid against it (found anew under scenarios/,
so new ones are checked too), every parameter table in it, and mistakes an editor should flag
rejected.

Usage: test_schema.py TORSIM_BINARY  (run by CTest; needs the jsonschema module, which
scripts/setup.sh installs)
"""
import copy
import glob
import json
import os
import unittest

import jsonschema

from harness import ROOT, run


def schema(*args):
    return json.loads(run("schema", *args, check=True).stdout)


def shipped(machines):
    files = sorted(glob.glob(os.path.join(ROOT, "scenarios", "**", "*.json"), recursive=True))
    return [f for f in files if (os.sep + "machines" + os.sep in f) == machines]


def load(path):
    with open(path) as f:
        return json.load(f)


def property_names(node, out):
    if isinstance(node, dict):
        out.update(node.get("properties", {}))
        for value in node.values():
            property_names(value, out)
    elif isinstance(node, list):
        for value in node:
            property_names(value, out)
    return out


class Schema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scenario = jsonschema.Draft7Validator(schema())
        cls.machine = jsonschema.Draft7Validator(schema("--machine"))

    def errors(self, validator, doc):
        return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]

    def test_the_schemas_in_docs_are_current(self):
        for name, args in (("scenario.schema.json", ()), ("machine.schema.json", ("--machine",))):
            with open(os.path.join(ROOT, "docs", "schema", name)) as f:
                self.assertEqual(json.load(f), schema(*args), f"docs/schema/{name} is stale: run `make reference`")

    def test_they_are_draft_7_schemas(self):
        jsonschema.Draft7Validator.check_schema(self.scenario.schema)
        jsonschema.Draft7Validator.check_schema(self.machine.schema)

    def test_every_shipped_scenario_and_preset_is_valid(self):
        for machines, validator in ((False, self.scenario), (True, self.machine)):
            files = shipped(machines)
            self.assertGreater(len(files), 5)
            for path in files:
                with self.subTest(os.path.relpath(path, ROOT)):
                    self.assertEqual(self.errors(validator, load(path)), [])

    def test_every_parameter_of_the_reference_is_in_the_schema(self):
        names = property_names(self.scenario.schema, set())
        reference = run("reference", check=True).stdout
        keys = {line.split("`")[1] for line in reference.splitlines() if line.startswith("| `")}
        self.assertEqual(keys - names, set())

    def test_mistakes_are_flagged(self):
        scenario = load(os.path.join(ROOT, "scenarios", "xe6", "mpi-latency.json"))
        self.assertEqual(self.errors(self.scenario, scenario), [])
        mistakes = {
            "unknown top-level key": lambda s: s.update(machien="hopper"),
            "unknown workload key": lambda s: s["workload"].update(iteratons=3),
            "unknown workload": lambda s: s["workload"].update(name="pingpang"),
            "wrong type": lambda s: s["workload"].update(iterations="many"),
            "unit that does not parse": lambda s: s["workload"].update(sizes=["8 parsecs"]),
            "size where a time goes": lambda s: s.update(machine={"preset": "hopper", "node": {"nic_latency": "4KiB"}}),
            "unknown preset": lambda s: s.update(machine="hoper"),
            "unknown key in a preset override": lambda s: s.update(machine={"preset": "hopper", "node": {"corez": 3}}),
            "out of range": lambda s: s["workload"].update(iterations=0),
            "empty sweep list": lambda s: s.update(sweep={"workload.peer": []}),
            "unknown network model": lambda s: s.update(network={"model": "packets"}),
            "unknown trace option": lambda s: s.update(output={"trace": {"rank": [0]}}),
        }
        for what, mistake in mistakes.items():
            with self.subTest(what):
                doc = copy.deepcopy(scenario)
                mistake(doc)
                self.assertNotEqual(self.errors(self.scenario, doc), [])
        preset = load(os.path.join(ROOT, "scenarios", "machines", "hopper.json"))
        del preset["node"]
        self.assertNotEqual(self.errors(self.machine, preset), [], "a preset without its node section")
        derived = load(os.path.join(ROOT, "scenarios", "machines", "bgq-32.json"))
        derived["nodes"] = derived.pop("node", {})
        self.assertNotEqual(self.errors(self.machine, derived), [], "a derived preset with an unknown key")


if __name__ == "__main__":
    import harness
    harness.main()
