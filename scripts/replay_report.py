#!/usr/bin/env python3
"""The recorded-against-replayed comparison of docs/replay.md, from torsim runs.

    python3 scripts/replay_report.py TORSIM [--check]

Replays every scenario under scenarios/replay/ and writes docs/replay/comparison.md (per trace:
the whole run and each call type, recorded and simulated) and one PNG per trace
(docs/replay/SCENARIO.png: recorded against simulated time per call type, in total and per
call). With --check it writes nothing and exits 1 when the committed markdown differs from what
it would write (the PNGs are not compared: their bytes depend on matplotlib's version).
"""
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios" / "replay"
OUT = ROOT / "docs" / "replay"
CALL_COLUMNS = ["call", "count", "recorded_total_us", "simulated_total_us", "recorded_median_us",
                "simulated_median_us"]


def replay(torsim, scenario, *sets):
    """The scenario, its machine's name and the one point of its results.json."""
    with tempfile.TemporaryDirectory() as out:
        command = [torsim, "run", str(scenario), "--out", out, "--quiet"]
        for s in sets:
            command += ["--set", s]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        doc = json.loads((pathlib.Path(out) / "results.json").read_text())
    return json.loads(scenario.read_text()), doc["machine"]["name"], doc["points"][0]


def calls(point):
    """Rows of the calls series as dicts, the longest recorded total first."""
    series = point["series"]["calls"]
    if series["columns"] != CALL_COLUMNS:
        raise SystemExit(f"unexpected columns of the calls series: {series['columns']}")
    rows = [dict(zip(CALL_COLUMNS, row)) for row in series["rows"]]
    return sorted(rows, key=lambda r: (-r["recorded_total_us"], r["call"]))


def ratio(simulated, recorded):
    return f"{simulated / recorded:.2f}" if recorded > 0 else "-"


def section(name, scenario, machine, point, unaligned):
    m = point["metrics"]
    job = point["job"]
    lines = [f"## {name}", "", scenario.get("description", ""), "",
             f"`scenarios/replay/{name}.json`: {int(m['ranks'])} ranks on {job['nodes']} nodes of "
             f"`{machine}`, layer `{job['messaging_layer']}`, {int(m['calls'])} calls "
             f"({int(m['unsupported_calls'])} unsupported, {int(m['unresolved_calls'])} unresolved).", "",
             "| | recorded | simulated | simulated / recorded |", "|---|---|---|---|",
             f"| run (end of MPI_Init to MPI_Finalize), ms | {m['recorded_us'] / 1e3:.3f} | "
             f"{m['simulated_us'] / 1e3:.3f} | {ratio(m['simulated_us'], m['recorded_us'])} |"]
    if unaligned is not None:
        u = unaligned["metrics"]
        lines.append(f"| run, hosts' clocks as recorded (`--set workload.clocks=recorded`), ms | {u['recorded_us'] / 1e3:.3f} | "
                     f"{u['simulated_us'] / 1e3:.3f} | {ratio(u['simulated_us'], u['recorded_us'])} |")
    ranks = point["series"]["ranks"]
    columns = ranks["columns"]
    in_calls = [sum(row[columns.index(c)] for row in ranks["rows"]) for c in
                ("recorded_in_calls_us", "simulated_in_calls_us")]
    compute = sum(row[columns.index("compute_us")] for row in ranks["rows"])
    lines.append(f"| time inside MPI calls, all ranks, ms | {in_calls[0] / 1e3:.3f} | {in_calls[1] / 1e3:.3f} | "
                 f"{ratio(in_calls[1], in_calls[0])} |")
    lines += ["", f"Computation replayed from the recorded gaps within the run: {compute / 1e3:.3f} ms over all ranks. "
              f"Clock offset applied: {m['clock_offset_max_us'] / 1e3:.3f} ms at most "
              f"({int(m['clock_messages'])} messages between hosts).", "",
              "| call | count | recorded total, ms | simulated total, ms | simulated / recorded | "
              "recorded median, us | simulated median, us |",
              "|---|---|---|---|---|---|---|"]
    for r in calls(point):
        lines.append(f"| {r['call']} | {int(r['count'])} | {r['recorded_total_us'] / 1e3:.3f} | "
                     f"{r['simulated_total_us'] / 1e3:.3f} | {ratio(r['simulated_total_us'], r['recorded_total_us'])} | "
                     f"{r['recorded_median_us']:.3f} | {r['simulated_median_us']:.3f} |")
    lines += ["", f"![recorded against simulated time per call type, {name}]({name}.png)", ""]
    return lines


def plot(name, point, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in calls(point) if r["recorded_total_us"] > 0 or r["simulated_total_us"] > 0]
    names = [r["call"] for r in rows]
    y = list(range(len(rows)))
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.35 * len(rows) + 1.5), sharey=True)
    for ax, kind, unit, scale in ((axes[0], "total", "ms", 1e3), (axes[1], "median", "us", 1)):
        recorded = [max(r[f"recorded_{kind}_us"] / scale, 1e-4) for r in rows]
        simulated = [max(r[f"simulated_{kind}_us"] / scale, 1e-4) for r in rows]
        ax.barh([v - 0.2 for v in y], recorded, height=0.4, label="recorded")
        ax.barh([v + 0.2 for v in y], simulated, height=0.4, label="simulated")
        for offset, who in ((-0.2, "recorded"), (0.2, "simulated")):
            for v, r in zip(y, rows):
                if r[f"{who}_{kind}_us"] == 0:
                    ax.text(1.2e-4, v + offset, "0", va="center", fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel(f"{kind} per call type ({unit})" if kind == "total" else f"median per call ({unit})")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(names)
    axes[0].invert_yaxis()
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{name}: recorded against replayed", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        sys.exit(__doc__)
    lines = ["# Trace replay: recorded against replayed", "",
             "Generated by `python3 scripts/replay_report.py build/torsim` from the scenarios under",
             "`scenarios/replay/` (do not edit by hand); docs/replay.md reads it. A median is the",
             "lowest value of its histogram bucket (within 0.1 %).", ""]
    points = []
    for scenario_path in sorted(SCENARIOS.glob("*.json")):
        scenario, machine, point = replay(args[0], scenario_path)
        unaligned = None
        if point["metrics"]["clock_offset_max_us"] > 0:
            unaligned = replay(args[0], scenario_path, "workload.clocks=recorded")[2]
        points.append((scenario_path.stem, point))
        lines += section(scenario_path.stem, scenario, machine, point, unaligned)
    text = "\n".join(lines)
    markdown = OUT / "comparison.md"
    if check:
        if not markdown.exists() or markdown.read_text() != text:
            sys.exit(f"{markdown.relative_to(ROOT)} is stale: run `python3 scripts/replay_report.py build/torsim`")
        return
    OUT.mkdir(exist_ok=True)
    markdown.write_text(text)
    for name, point in points:
        plot(name, point, OUT / f"{name}.png")


if __name__ == "__main__":
    main()
