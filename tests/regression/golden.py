#!/usr/bin/env python3
"""Golden regression on structured model outputs (results.json, never logs).

  golden.py check TORSIM SCENARIO             compare a scenario's outputs with its golden file
  golden.py update TORSIM --reason TEXT [SCENARIO ...]
                                              rewrite goldens (all scenarios when none given) and
                                              record the one-line reason in validation/CHANGELOG.md
  golden.py list                              the scenarios the regression covers

The engine is deterministic, so outputs are compared exactly; a mismatch prints which metric
moved and by how much. Goldens live in validation/golden/<scenario path under scenarios/>.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN_DIR = os.path.join(ROOT, "validation", "golden")
CHANGELOG = os.path.join(ROOT, "validation", "CHANGELOG.md")
POINT_KEYS = ("sweep", "job", "metrics", "series", "counters", "simulated_time_us", "blocked_processes")
MAX_LINES = 40


def scenario_files():
    """Every scenario under scenarios/ except the machine presets, relative to the root."""
    found = []
    for base, dirs, files in os.walk(os.path.join(ROOT, "scenarios")):
        dirs[:] = sorted(d for d in dirs if d != "machines" or base != os.path.join(ROOT, "scenarios"))
        found += [os.path.relpath(os.path.join(base, f), ROOT) for f in sorted(files) if f.endswith(".json")]
    return sorted(found)


def golden_path(scenario):
    relative = os.path.relpath(os.path.join(ROOT, scenario), os.path.join(ROOT, "scenarios"))
    return os.path.join(GOLDEN_DIR, relative)


def extract(results):
    """The deterministic model outputs: the machine and, per point, what the model computed.
    The scenario echo (descriptions), the version and wall-clock figures are left out."""
    return {"machine": results["machine"],
            "points": [{key: point[key] for key in POINT_KEYS} for point in results["points"]]}


def run_torsim(torsim, scenario):
    with tempfile.TemporaryDirectory(prefix="torsim-golden-") as out:
        proc = subprocess.run([torsim, "run", scenario, "--out", out, "--quiet"], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"torsim failed on {scenario} (exit {proc.returncode}):\n{proc.stderr}")
        with open(os.path.join(out, "results.json")) as f:
            return extract(json.load(f))


def describe_change(old, new):
    if isinstance(old, (int, float)) and isinstance(new, (int, float)) and not isinstance(old, bool):
        change = "was 0" if old == 0 else f"{(new - old) / abs(old) * 100:+.4g} %"
        return f"{old!r} -> {new!r} ({change})"
    return f"{json.dumps(old)} -> {json.dumps(new)}"


def series_cell_paths(path, old_series, new_series):
    """Series rows are named by their first column's value and cells by column name."""
    lines = []
    columns = new_series.get("columns", [])
    old_rows, new_rows = old_series.get("rows", []), new_series.get("rows", [])
    if old_series.get("columns") != columns:
        lines.append(f"{path}.columns: {describe_change(old_series.get('columns'), columns)}")
    if len(old_rows) != len(new_rows):
        lines.append(f"{path}.rows: {len(old_rows)} rows -> {len(new_rows)} rows")
    for old_row, new_row in zip(old_rows, new_rows):
        key = f"{columns[0]}={new_row[0]:g}" if columns and new_row else "?"
        for c, (a, b) in enumerate(zip(old_row, new_row)):
            if a != b:
                name = columns[c] if c < len(columns) else str(c)
                lines.append(f"{path}[{key}].{name}: {describe_change(a, b)}")
    return lines


def diff(old, new, path=""):
    """One line per changed leaf, added or removed key, or changed list length."""
    if isinstance(old, dict) and isinstance(new, dict):
        if ".series." in path + "." and "columns" in new and "rows" in new:
            return series_cell_paths(path, old, new)
        lines = []
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else key
            if key not in new:
                lines.append(f"{sub}: removed (was {json.dumps(old[key])[:60]})")
            elif key not in old:
                lines.append(f"{sub}: added ({json.dumps(new[key])[:60]})")
            else:
                lines += diff(old[key], new[key], sub)
        return lines
    if isinstance(old, list) and isinstance(new, list):
        lines = [] if len(old) == len(new) else [f"{path}: {len(old)} elements -> {len(new)} elements"]
        for i, (a, b) in enumerate(zip(old, new)):
            lines += diff(a, b, f"{path}[{i}]")
        return lines
    return [] if old == new else [f"{path}: {describe_change(old, new)}"]


def dump(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def check(torsim, scenario):
    path = golden_path(scenario)
    if not os.path.exists(path):
        print(f"no golden for {scenario}: create it with `make update-golden REASON=\"...\"` "
              f"(tests/regression/golden.py update)")
        return 1
    with open(path) as f:
        old = json.load(f)
    new = run_torsim(torsim, scenario)
    lines = diff(old, new)
    if not lines:
        return 0
    print(f"{scenario}: {len(lines)} model outputs differ from {os.path.relpath(path, ROOT)}")
    for line in lines[:MAX_LINES]:
        print("  " + line)
    if len(lines) > MAX_LINES:
        print(f"  ... and {len(lines) - MAX_LINES} more")
    print("If the change is intended, update the goldens with a reason: make update-golden REASON=\"...\"")
    return 1


def valid_reason(reason):
    return bool(reason and reason.strip()) and "\n" not in reason and "\r" not in reason


def changelog_line(reason, scenarios, all_scenarios, today=None):
    today = today or datetime.date.today().isoformat()
    which = "all" if all_scenarios else ", ".join(scenarios)
    return f"- {today}: {reason.strip()} ({len(scenarios)} goldens: {which})\n"


def update(torsim, reason, scenarios):
    if not valid_reason(reason):
        print("update needs --reason with one non-empty line saying why the model outputs changed")
        return 2
    everything = not scenarios
    changed = []
    for scenario in scenarios or scenario_files():
        path = golden_path(scenario)
        text = dump(run_torsim(torsim, scenario))
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            print(f"unchanged  {scenario}")
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        changed.append(scenario)
        print(f"updated    {scenario}")
    if changed:
        with open(CHANGELOG, "a") as f:
            f.write(changelog_line(reason, changed, everything and len(changed) == len(scenario_files())))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        print("\n".join(scenario_files()))
        return 0
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    if len(argv) >= 3 and argv[1] in ("update", "--update-golden"):
        args, reason, scenarios = argv[3:], None, []
        while args:
            arg = args.pop(0)
            if arg == "--reason":
                reason = args.pop(0) if args else ""
            else:
                scenarios.append(arg)
        return update(argv[2], reason, scenarios)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
