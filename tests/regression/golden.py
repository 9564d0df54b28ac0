#!/usr/bin/env python3
"""Golden regression on structured model outputs (results.json, never logs).

  golden.py check TORSIM SCENARIO
      compare a scenario's model outputs with its golden file; exit 1 with a diff on mismatch
  golden.py update TORSIM --reason "one line" [SCENARIO ...]
  golden.py --update-golden TORSIM --reason "one line" [SCENARIO ...]   (the same)
      rewrite the goldens (every scenario when none is given) and, if any changed, append the
      reason to validation/CHANGELOG.md; exit 2 without a one-line reason
  golden.py list
      the scenario files the regression covers, relative to the repository root

The engine is deterministic, so outputs are compared exactly, types included (8 and 8.0
differ). Goldens live in validation/golden/<scenario path under scenarios/>.

A scenario too costly for the test suite in full is run, by check and update alike, with the
--set overrides that tests/regression/reduced.json records for it, with the reason:
  {"scenarios": {"scenarios/x/y.json": {"set": ["workload.nz=128"], "why": "one line"}}}
Its golden records them under "golden_overrides", so a change of them shows as a diff.
"""
import argparse
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
POINT_KEYS = ("sweep", "job", "metrics", "series", "counters", "simulated_time_us", "blocked_processes")
# Prose is not a model output: a preset's description must not move a golden (it is not even
# updated when a scenario overrides the preset's topology).
MACHINE_PROSE_KEYS = ("description",)
OVERRIDES_KEY = "golden_overrides"
SET_PATTERN = re.compile(r"[^=\s]+=.+", re.DOTALL)  # torsim run's --set path=value
MAX_LINES = 40
VALUE_WIDTH = 80
CHANGELOG_HEADER = """# Changes of golden model outputs

Every change of a golden output under `validation/golden/` is recorded here with its reason,
one line each (`make update-golden REASON="..."` appends it). The regression tests compare
scenario outputs with the goldens exactly; a model change that moves a result must say why.

"""


class GoldenError(Exception):
    """A failure reported as one message with exit status 1 (no traceback)."""


# --- where things are -------------------------------------------------------------------------

def scenarios_dir(root):
    return os.path.join(root, "scenarios")


def changelog_path(root):
    return os.path.join(root, "validation", "CHANGELOG.md")


def reduced_table_path(root):
    return os.path.join(root, "tests", "regression", "reduced.json")


def is_machine_preset(relative_to_scenarios):
    return relative_to_scenarios.split(os.sep)[0] == "machines"


def scenario_files(root=ROOT):
    """Every *.json under scenarios/ except the machine presets, relative to the root, sorted."""
    found = []
    for base, dirs, files in os.walk(scenarios_dir(root)):
        dirs.sort()
        for name in sorted(f for f in files if f.endswith(".json")):
            path = os.path.join(base, name)
            if not is_machine_preset(os.path.relpath(path, scenarios_dir(root))):
                found.append(os.path.relpath(path, root))
    return sorted(found)


def relative_scenario(scenario, root=ROOT):
    """The scenario as a path relative to the root, whether it was given relative to the current
    directory, to the root, or absolute. Anything outside the covered scenarios is an error."""
    candidates = [os.path.realpath(scenario), os.path.realpath(os.path.join(root, scenario))]
    path = next((c for c in candidates if os.path.isfile(c)), None)
    if path is None:
        raise GoldenError(f"no such scenario file: {scenario}")
    under_scenarios = os.path.relpath(path, scenarios_dir(os.path.realpath(root)))
    if under_scenarios.startswith(os.pardir) or is_machine_preset(under_scenarios):
        raise GoldenError(f"{scenario} is not a scenario covered by the regression "
                          "(scenarios/**/*.json, except scenarios/machines/)")
    return os.path.join("scenarios", under_scenarios)


def golden_path(scenario, root=ROOT):
    """validation/golden/<path under scenarios/> for a root-relative scenario path."""
    under_scenarios = os.path.relpath(os.path.join(root, scenario), scenarios_dir(root))
    return os.path.join(root, "validation", "golden", under_scenarios)


# --- reduced runs ---------------------------------------------------------------------------

def is_one_line(text):
    return isinstance(text, str) and bool(text.strip()) and len(text.splitlines()) == 1 \
        and not text.endswith(("\n", "\r"))


def check_reduced_entry(where, scenario, entry, covered):
    if scenario not in covered:
        raise GoldenError(f"{where}: expected the path of a scenario covered by the regression, "
                          "relative to the repository root (scenarios/**/*.json, except scenarios/machines/)")
    if not isinstance(entry, dict) or set(entry) != {"set", "why"}:
        raise GoldenError(f'{where}: expected an object with the keys "set" and "why" only, got {show(entry)}')
    sets = entry["set"]
    if not isinstance(sets, list) or not sets or not all(
            isinstance(s, str) and SET_PATTERN.fullmatch(s) for s in sets):
        raise GoldenError(f'{where}.set: expected a non-empty list of "path=value" strings '
                          f"(torsim run's --set), got {show(sets)}")
    if not is_one_line(entry["why"]):
        raise GoldenError(f"{where}.why: expected one non-empty line saying why the golden runs "
                          f"reduced, got {show(entry['why'])}")


def reduced_runs(root=ROOT):
    """{scenario: {"set": [...], "why": "..."}} from tests/regression/reduced.json, every entry
    checked ({} without the file). A malformed entry is an error naming its JSON path."""
    path = reduced_table_path(root)
    if not os.path.exists(path):
        return {}
    name = os.path.relpath(path, root)
    try:
        with open(path) as f:
            table = json.load(f)
    except ValueError as error:
        raise GoldenError(f"{name}: not valid JSON: {error}") from error
    if not isinstance(table, dict) or not isinstance(table.get("scenarios"), dict):
        raise GoldenError(f'{name}: expected an object whose "scenarios" is an object '
                          '(scenario path -> {"set": [...], "why": "..."})')
    covered = set(scenario_files(root))
    for scenario, entry in table["scenarios"].items():
        check_reduced_entry(f"{name}: scenarios.{json.dumps(scenario)}", scenario, entry, covered)
    return table["scenarios"]


def overrides_of(scenario, reduced):
    """The --set overrides a scenario's golden runs with ([] for most), and why."""
    entry = reduced.get(scenario, {"set": [], "why": ""})
    return entry["set"], entry["why"]


def run_label(scenario, sets, why):
    """The scenario, and how its golden runs when it is reduced."""
    if not sets:
        return scenario
    return f"{scenario} (run with {' '.join('--set ' + s for s in sets)}: {why})"


# --- running torsim ---------------------------------------------------------------------------

def extract(results):
    """The deterministic model outputs: the machine and, per point, what the model computed.
    The scenario echo (descriptions), the version and wall-clock figures are left out."""
    machine = {k: v for k, v in results["machine"].items() if k not in MACHINE_PROSE_KEYS}
    points = [{key: point[key] for key in POINT_KEYS} for point in results["points"]]
    return {"machine": machine, "points": points}


def torsim_command(torsim):
    # A path is made absolute because torsim runs from the root; a bare name is looked up in PATH.
    return os.path.abspath(torsim) if os.sep in torsim else torsim


def run_torsim(torsim, scenario, root=ROOT, sets=()):
    """torsim's results.json for a root-relative scenario path run with `sets`, parsed."""
    with tempfile.TemporaryDirectory(prefix="torsim-golden-") as out:
        command = [torsim_command(torsim), "run", scenario, "--out", out, "--quiet"]
        command += [arg for s in sets for arg in ("--set", s)]
        try:
            proc = subprocess.run(command, cwd=root, capture_output=True, text=True)
        except OSError as error:
            raise GoldenError(f"cannot run {torsim}: {error}") from error
        if proc.returncode != 0:
            raise GoldenError(f"torsim failed on {scenario} (exit {proc.returncode}):\n{proc.stderr}")
        try:
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
        except (OSError, ValueError) as error:
            raise GoldenError(f"torsim wrote no readable results.json for {scenario}: {error}") from error
        check_series_csvs(out, scenario)
        return results


def same_cell(a, b):
    """A CSV cell read back against results.json's value (a list or object as its JSON text)."""
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def check_series_csvs(out, scenario):
    """Every series CSV read back through the Python package (torsim.load(...).series(...)) is
    the table results.json holds, cell for cell: quoting keeps list-valued sweep values whole."""
    names = sorted(name[:-4] for name in os.listdir(out) if name.endswith(".csv") and name != "links.csv")
    if not names:
        return
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torsim  # noqa: E402  (needs pandas; only when there are CSVs to read)
    results = torsim.load(out)
    for name in names:
        from_csv, from_json = results.series(name), results._series_from_json(name)
        if list(from_csv.columns) != list(from_json.columns) or from_csv.shape != from_json.shape:
            raise GoldenError(f"{scenario}: {name}.csv reads back with columns {list(from_csv.columns)} and "
                              f"shape {from_csv.shape}; results.json has {list(from_json.columns)}, {from_json.shape}")
        for column in from_csv.columns:
            for row, (a, b) in enumerate(zip(from_csv[column].tolist(), from_json[column].tolist())):
                if not same_cell(a, b):
                    raise GoldenError(f"{scenario}: {name}.csv row {row}, column {column}: "
                                      f"{a!r} read back, {b!r} in results.json")


def model_outputs(torsim, scenario, root=ROOT, sets=()):
    try:
        return extract(run_torsim(torsim, scenario, root, sets))
    except (KeyError, TypeError, AttributeError) as error:
        raise GoldenError(f"results.json of {scenario} lacks an expected key: {error!r}") from error


def golden_document(torsim, scenario, root=ROOT, sets=()):
    """What a golden holds: the model outputs, and the overrides they were run with if any."""
    doc = model_outputs(torsim, scenario, root, sets)
    if sets:
        doc[OVERRIDES_KEY] = list(sets)
    return doc


# --- diff -------------------------------------------------------------------------------------

def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_leaf(old, new):
    """Exact equality, types included: Python's 1 == 1.0 == True would hide a changed output."""
    if type(old) is not type(new):
        return False
    if isinstance(old, float) and math.isnan(old) and math.isnan(new):
        return True
    return old == new


def show(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= VALUE_WIDTH else text[:VALUE_WIDTH - 3] + "..."


def relative_change(old, new):
    if old == 0:
        return "was 0"
    return f"{(new - old) / abs(old) * 100:+.4g} %"


def describe_change(old, new):
    if is_number(old) and is_number(new):
        return f"{show(old)} -> {show(new)} ({relative_change(old, new)})"
    return f"{show(old)} -> {show(new)}"


def is_series(value):
    return (isinstance(value, dict) and set(value) == {"columns", "rows"}
            and isinstance(value["columns"], list) and isinstance(value["rows"], list)
            and all(isinstance(row, list) for row in value["rows"]))


def key_width(rows):
    """How many leading columns name each row uniquely (e.g. size_bytes, or links and
    size_bytes together); 0 when no prefix does, and rows are then named by index."""
    width = max((len(row) for row in rows), default=0)
    for count in range(1, width + 1):
        keys = {json.dumps(row[:count]) for row in rows}
        if len(keys) == len(rows):
            return count
    return 0


def show_key_value(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # size_bytes=1048576, not 1.04858e+06 or 1048576.0
    return value if isinstance(value, str) else json.dumps(value)


def row_label(columns, row, width, index):
    if width == 0:
        return f".rows[{index}]"
    names = [columns[c] if c < len(columns) else str(c) for c in range(width)]
    return "[" + ",".join(f"{n}={show_key_value(v)}" for n, v in zip(names, row)) + "]"


def series_diff(path, old, new):
    """Cells named by their row's key columns and their own column, against the golden's rows."""
    columns, old_rows, new_rows = old["columns"], old["rows"], new["rows"]
    lines = []
    if columns != new["columns"]:
        lines.append(f"{path}.columns: {describe_change(columns, new['columns'])}")
    if len(old_rows) != len(new_rows):
        lines.append(f"{path}.rows: {len(old_rows)} rows -> {len(new_rows)} rows")
    width = key_width(old_rows)
    for index, (old_row, new_row) in enumerate(zip(old_rows, new_rows)):
        where = path + row_label(columns, old_row, width, index)
        if len(old_row) != len(new_row):
            lines.append(f"{where}: {len(old_row)} cells -> {len(new_row)} cells")
        for c, (a, b) in enumerate(zip(old_row, new_row)):
            name = columns[c] if c < len(columns) else str(c)
            lines += diff(a, b, f"{where}.{name}")
    return lines


def dict_diff(path, old, new):
    lines = []
    for key in sorted(set(old) | set(new)):
        sub = f"{path}.{key}" if path else key
        if key not in new:
            lines.append(f"{sub}: removed (was {show(old[key])})")
        elif key not in old:
            lines.append(f"{sub}: added ({show(new[key])})")
        else:
            lines += diff(old[key], new[key], sub)
    return lines


def list_diff(path, old, new):
    lines = [] if len(old) == len(new) else [f"{path}: {len(old)} elements -> {len(new)} elements"]
    for index, (a, b) in enumerate(zip(old, new)):
        lines += diff(a, b, f"{path}[{index}]")
    return lines


def diff(old, new, path=""):
    """One line per changed leaf, added or removed key, or changed list length; [] if equal."""
    if is_series(old) and is_series(new):
        return series_diff(path, old, new)
    if isinstance(old, dict) and isinstance(new, dict):
        return dict_diff(path, old, new)
    if isinstance(old, list) and isinstance(new, list):
        return list_diff(path, old, new)
    return [] if same_leaf(old, new) else [f"{path}: {describe_change(old, new)}"]


def capped(lines, limit=MAX_LINES):
    """At most `limit` lines, then how many were left out."""
    if len(lines) <= limit:
        return list(lines)
    return lines[:limit] + [f"... and {len(lines) - limit} more"]


# --- commands ---------------------------------------------------------------------------------

def dump(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def update_hint(scenario):
    return (f'python3 tests/regression/golden.py update build/torsim --reason "why" {scenario}'
            '   (or: make update-golden REASON="why" for every scenario)')


def check(torsim, scenario, root=ROOT):
    scenario = relative_scenario(scenario, root)
    sets, why = overrides_of(scenario, reduced_runs(root))
    label, path = run_label(scenario, sets, why), golden_path(scenario, root)
    if not os.path.exists(path):
        print(f"no golden file {os.path.relpath(path, root)} for {label}; create it with:\n"
              f"  {update_hint(scenario)}")
        return 1
    with open(path) as f:
        old = json.load(f)
    lines = diff(old, golden_document(torsim, scenario, root, sets))
    if not lines:
        print(f"{label}: model outputs match {os.path.relpath(path, root)}")
        return 0
    print(f"{label}: {len(lines)} model outputs differ from {os.path.relpath(path, root)} (old -> new)")
    for line in capped(lines):
        print("  " + line)
    print(f"If the change is intended, update the golden with its reason:\n  {update_hint(scenario)}")
    return 1


def changelog_line(reason, scenarios, all_scenarios, today=None):
    today = today or datetime.date.today().isoformat()
    which = "all" if all_scenarios else ", ".join(scenarios)
    return f"- {today}: {reason.strip()} ({len(scenarios)} goldens: {which})\n"


def append_changelog(line, root=ROOT):
    path = changelog_path(root)
    text = open(path).read() if os.path.exists(path) else CHANGELOG_HEADER
    if text and not text.endswith("\n"):
        text += "\n"
    with open(path, "w") as f:
        f.write(text + line)


def write_if_changed(path, text):
    """True when the file's content changed (or it did not exist)."""
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return True


def update(torsim, reason, scenarios, root=ROOT):
    if not is_one_line(reason):
        print('update refused: give --reason "..." with one non-empty line saying why the model '
              "outputs changed (it is recorded in validation/CHANGELOG.md)", file=sys.stderr)
        return 2
    every_scenario = not scenarios
    names = list(dict.fromkeys(relative_scenario(s, root) for s in scenarios)) or scenario_files(root)
    # Run everything before writing anything: a torsim failure leaves no half-updated goldens.
    reduced = reduced_runs(root)
    overrides = {name: overrides_of(name, reduced) for name in names}
    texts = {name: dump(golden_document(torsim, name, root, overrides[name][0])) for name in names}
    changed = [name for name in names if write_if_changed(golden_path(name, root), texts[name])]
    for name in names:
        print(f"{'updated  ' if name in changed else 'unchanged'}  {run_label(name, *overrides[name])}")
    if not changed:
        print("no golden changed; validation/CHANGELOG.md left as it was")
        return 0
    line = changelog_line(reason, changed, every_scenario and len(changed) == len(names))
    append_changelog(line, root)
    print(f"recorded in validation/CHANGELOG.md: {line.rstrip()}")
    return 0


def parse(argv):
    """argv without the program name -> (command, namespace). Each command has its own parser so
    that --reason may come before or after the scenarios (parse_intermixed_args)."""
    if argv and argv[0] == "--update-golden":
        argv = ["update", *argv[1:]]
    if not argv or argv[0] not in ("check", "update", "list"):
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    command, parser = argv[0], argparse.ArgumentParser(prog=f"golden.py {argv[0]}")
    if command in ("check", "update"):
        parser.add_argument("torsim", help="the torsim binary")
    if command == "check":
        parser.add_argument("scenario")
    if command == "update":
        parser.add_argument("--reason", help="one line saying why the model outputs changed")
        parser.add_argument("scenarios", nargs="*", help="default: every scenario")
    return command, parser.parse_intermixed_args(argv[1:])


def main(argv):
    command, args = parse(argv[1:])
    try:
        if command == "list":
            print("\n".join(scenario_files()))
            return 0
        if command == "check":
            return check(args.torsim, args.scenario)
        return update(args.torsim, args.reason, args.scenarios)
    except GoldenError as error:
        print(f"golden.py {command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
