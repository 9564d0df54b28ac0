#!/usr/bin/env python3
"""Runs one libFuzzer target for a fixed number of inputs (CTest `fuzz:*`, `make sanitize`).

  run_fuzzer.py FUZZER --target scenario|units|dumpi|ti --runs N --work DIR [--seed S] [--max-seconds T]

It stops after N inputs, or after T seconds on a machine too slow to try N within CI's budget
(then fewer inputs, from the same seed).

Seeds: every shipped scenario and machine preset (scenarios/**/*.json), found anew on each run;
for the units parser, every quantity string they contain; for the trace readers, the shipped
traces of their format (tests/data/traces/: DUMPI's test trace, SimGrid's action files). The scenario fuzzer also gets a
dictionary of every key of the parameter tables (from `torsim schema`, when the torsim binary
is beside the fuzzer). The corpus grows in WORK/corpus (never in the source tree); a crash is
written to WORK/ and reported with what to do with it: add it under tests/fuzz/regressions/ and
fix the bug.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
QUANTITY = re.compile(r"^ *[0-9.]+(e[+-]?[0-9]+)? *[A-Za-z/]+ *$")


def shipped_json():
    for base, dirs, files in os.walk(os.path.join(ROOT, "scenarios")):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".json"):
                yield os.path.join(base, name)


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def unit_seeds(directory):
    os.makedirs(directory, exist_ok=True)
    found = set()
    for path in shipped_json():
        with open(path) as f:
            found.update(s for s in strings_in(json.load(f)) if QUANTITY.match(s))
    for i, text in enumerate(sorted(found)):
        with open(os.path.join(directory, f"seed-{i}"), "w") as f:
            f.write(text)
    return [directory]


def trace_seeds(target, directory):
    """The shipped traces of the reader's format: DUMPI rank files, time-independent action files."""
    os.makedirs(directory, exist_ok=True)
    traces = os.path.join(ROOT, "tests", "data", "traces")
    for folder in sorted(os.listdir(traces)):
        if not folder.startswith("dumpi-testtrace" if target == "dumpi" else "ti-"):
            continue
        for name in sorted(os.listdir(os.path.join(traces, folder))):
            if name.endswith(".bin" if target == "dumpi" else ".txt"):
                shutil.copy(os.path.join(traces, folder, name), directory)
    return [directory]


def keys_in(schema, out):
    if isinstance(schema, dict):
        for key, value in schema.get("properties", {}).items():
            out.add(key)
        for value in schema.values():
            keys_in(value, out)
    elif isinstance(schema, list):
        for value in schema:
            keys_in(value, out)


def dictionary(fuzzer, path):
    torsim = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(fuzzer))), "torsim")
    if not os.path.exists(torsim):
        return []
    schema = json.loads(subprocess.run([torsim, "schema"], capture_output=True, text=True, check=True).stdout)
    keys = set()
    keys_in(schema, keys)
    with open(path, "w") as f:
        for key in sorted(keys):
            f.write(json.dumps(json.dumps(key)) + "\n")
    return [f"-dict={path}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fuzzer")
    parser.add_argument("--target", choices=("scenario", "units", "dumpi", "ti"), required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=int, default=0, help="0: no time limit")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    corpus = os.path.join(args.work, "corpus")
    os.makedirs(corpus)
    if args.target == "scenario":
        seeds = [os.path.join(ROOT, "scenarios"), os.path.join(ROOT, "tests", "fuzz", "regressions", "scenario")]
        extra = dictionary(os.path.realpath(args.fuzzer), os.path.join(args.work, "keys.dict"))
    elif args.target == "units":
        seeds = unit_seeds(os.path.join(args.work, "seeds")) + [os.path.join(ROOT, "tests", "fuzz", "regressions", "units")]
        extra = []
    else:
        seeds = trace_seeds(args.target, os.path.join(args.work, "seeds")) + [
            os.path.join(ROOT, "tests", "fuzz", "regressions", args.target)]
        extra = []
    command = [args.fuzzer, f"-runs={args.runs}", f"-seed={args.seed}", f"-max_total_time={args.max_seconds}", "-max_len=8192", "-timeout=60",
               "-rss_limit_mb=3072", "-print_final_stats=1", f"-artifact_prefix={args.work}/", *extra, corpus, *seeds]
    print(" ".join(command), flush=True)
    proc = subprocess.run(command, cwd=args.work)
    if proc.returncode != 0:
        crashes = [f for f in os.listdir(args.work) if re.match(r"(crash|leak|timeout|oom|slow-unit)-", f)]
        print(f"\nfuzz:{args.target} found a bug. Input(s) in {args.work}: {', '.join(crashes) or '(none written)'}\n"
              f"Add each to tests/fuzz/regressions/{args.target}/ (a unit test replays them) and fix the bug.",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
