"""`torsim plot RESULTS_DIR [--out FILE]`: a run's series drawn in one PNG, one panel per series
(each point of a sweep a curve, its second column against its first), or, for a sweep without
series, one panel per metric against the swept key with the most values (numeric keys first,
sizes, rates and times with units among them, each at its value), one line per combination of
the other keys. The style is the validation plots' (validation/plot_report.py).

Usage: python3 -m torsim.plot RESULTS_DIR OUT_PNG  (torsim plot runs it). Exit 2, with one line
`error: FILE: at PATH: ...`, when RESULTS_DIR holds neither a sweep nor a run with series, or
matplotlib is missing.
"""
import json
import os
import re
import sys

MAX_PANELS = 6
MAX_LEGEND = 12

# The units a scenario's values take (sim/config/units.cpp), in bytes, bytes per second and
# picoseconds: a sweep over "0.25GB/s" .. "1.5GB/s" is an axis at those rates, not four
# evenly spaced names.
UNITS = {
    "size": {"B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
             "TB": 1e12},
    "rate": {"B/s": 1, "KB/s": 1e3, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "KiB/s": 2**10, "MiB/s": 2**20,
             "GiB/s": 2**30, "Kb/s": 125, "Mb/s": 125e3, "Gb/s": 125e6},
    "time": {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12},
}
QUANTITY = re.compile(r" *([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?) *([A-Za-z/]+) *")  # spaces as units.cpp trims them


def quantity(value):
    """(kind, value in base units: bytes, bytes per second, picoseconds) of a value with a unit
    ("4KiB", "0.5GB/s", "105ns"), else None."""
    match = QUANTITY.fullmatch(value) if isinstance(value, str) else None
    if not match:
        return None
    for kind, units in UNITS.items():
        if match.group(2) in units:
            return kind, float(match.group(1)) * units[match.group(2)]
    return None


def x_value(value):
    """A swept value's position on a numeric axis: a number, or a quantity in its base unit."""
    q = quantity(value)
    return q[1] if q else value


def fail(file, path, message):
    sys.stderr.write(f"error: {file}: at {path}: {message}\n")
    sys.exit(2)


def load_results(results_dir):
    path = os.path.join(results_dir, "results.json")
    if not os.path.isfile(path):
        fail(results_dir, "/", "expected the output directory of torsim run (it holds no results.json)")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(path, "/", f"expected results.json written by torsim run: {e}")
    points = doc.get("points") if isinstance(doc, dict) else None
    count = len(points) if isinstance(points, list) else 0
    if count == 1 and points[0].get("series"):
        return path, doc  # a single run's curves
    if count < 2 or not points[0].get("sweep"):
        fail(path, "/points", f"expected a sweep (2 points or more) or a run with series, got {count} point"
             f"{'' if count == 1 else 's'} and no series: nothing to draw")
    return path, doc


def label(point):
    if not point.get("sweep"):
        return None
    return ", ".join(f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, str) else v}"
                     for k, v in point["sweep"].items())


def wide(values):
    positive = [v for v in values if isinstance(v, (int, float)) and v > 0]
    return len(positive) == len(values) and positive and max(positive) / min(positive) >= 64


def draw_series(ax, name, points):
    columns = None
    xs, ys = [], []
    for p in points:
        if name not in p["series"]:
            continue
        s = p["series"][name]
        columns = s["columns"]
        x = [row[0] for row in s["rows"]]
        y = [row[1] for row in s["rows"]]
        xs += x
        ys += y
        ax.plot(x, y, marker="o", markersize=3, label=label(p))
    ax.set_title(name, fontsize=9)
    ax.set_xlabel(columns[0])
    ax.set_ylabel(columns[1] if len(columns) > 1 else "")
    if wide(xs):
        ax.set_xscale("log", base=2)
    if wide(ys):
        ax.set_yscale("log")


def short(key):
    return key.rsplit(".", 1)[-1]


def metric_layout(points):
    """How a sweep's metrics are drawn: against the swept key with the most distinct values
    (numeric keys first, so a size or a node count is an axis), one line per combination of the
    other keys that vary. Returns (x_key, numeric, [(line_label, [point, ...]), ...])."""
    keys = list(points[0]["sweep"])
    distinct = {k: list(dict.fromkeys(json.dumps(p["sweep"].get(k)) for p in points)) for k in keys}
    varying = [k for k in keys if len(distinct[k]) > 1] or keys[:1]

    def numeric(k):
        values = [p["sweep"].get(k) for p in points]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return True
        kinds = {(quantity(v) or (None,))[0] for v in values}
        return len(kinds) == 1 and None not in kinds  # quantities of one kind: sizes, rates or times

    x_key = max(varying, key=lambda k: (numeric(k), len(distinct[k]), -varying.index(k)))
    others = [k for k in varying if k != x_key]
    lines = {}
    for p in points:
        text = ", ".join(f"{short(k)}={label_value(p['sweep'].get(k))}" for k in others)
        lines.setdefault(text, []).append(p)
    return x_key, numeric(x_key), list(lines.items())


def label_value(v):
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def draw_metric(ax, name, points):
    x_key, numeric, lines = metric_layout(points)
    categories = list(dict.fromkeys(label_value(p["sweep"].get(x_key)) for p in points))
    for text, members in lines:
        if numeric:
            members = sorted(members, key=lambda p: x_value(p["sweep"][x_key]))
        xs = [x_value(p["sweep"][x_key]) if numeric else categories.index(label_value(p["sweep"].get(x_key)))
              for p in members]
        ys = [p["metrics"].get(name, float("nan")) for p in members]
        ax.plot(xs, ys, marker="o", markersize=3, label=text or None)
    with_units = numeric and isinstance(points[0]["sweep"][x_key], str)
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories, rotation=20 if len(categories) > 4 else 0, ha="right", fontsize=7)
        return label_axes(ax, x_key, name)
    if wide([x_value(p["sweep"][x_key]) for p in points]):
        ax.set_xscale("log", base=2)
    if with_units and len(categories) <= MAX_LEGEND:  # each value where it lies, written as the scenario wrote it
        ticks = sorted({(x_value(v), v) for v in (p["sweep"][x_key] for p in points)})
        ax.set_xticks([x for x, _ in ticks])
        ax.set_xticklabels([v for _, v in ticks], rotation=20 if len(ticks) > 4 else 0, fontsize=7)
    elif len(categories) <= MAX_LEGEND and all(isinstance(p["sweep"][x_key], int) for p in points):
        ax.set_xticks(sorted({p["sweep"][x_key] for p in points}))
    label_axes(ax, x_key, name)


def label_axes(ax, x_key, name):
    ax.set_xlabel(x_key)
    ax.set_ylabel(name, fontsize=8)


def main(argv):
    if len(argv) != 3:
        fail("command line", "plot", "expected RESULTS_DIR OUT_PNG")
    results_dir, out = argv[1], argv[2]
    path, doc = load_results(results_dir)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("command line", "plot", "drawing needs python3 with matplotlib (scripts/setup.sh installs it)")
    points = doc["points"]
    series = sorted({name for p in points for name in p["series"]})
    metrics = list(dict.fromkeys(name for p in points for name in p["metrics"]))
    panels = [("series", n) for n in series] or [("metric", n) for n in metrics]
    if not panels:
        fail(path, "/points/0", "expected series or metrics to draw; the points have none")
    panels = panels[:MAX_PANELS]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 1.2 + 2.9 * len(panels)), squeeze=False)
    for ax, (kind, name) in zip(axes[:, 0], panels):
        (draw_series if kind == "series" else draw_metric)(ax, name, points)
        ax.grid(True, alpha=0.3)
        if kind == "series" and 1 < len(points) <= MAX_LEGEND:
            ax.legend(fontsize=8)
    sweep = points[0].get("sweep")
    title = f"{len(points)} points of {' x '.join(short(k) for k in sweep)}" if sweep else "one run"
    fig.suptitle(f"{doc['scenario']['name']}: {title}", fontsize=9)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if panels[0][0] == "metric" and 1 < len(labels) <= MAX_LEGEND:
        # The same lines in every panel: one legend, below them.
        columns = 2 if max(len(t) for t in labels) <= 55 else 1
        fig.legend(handles, labels, loc="lower center", ncol=columns, fontsize=6, frameon=False)
        rows = (len(labels) + columns - 1) // columns
        fig.tight_layout(rect=(0, 0.13 * rows / (1.2 + 2.9 * len(panels)) + 0.005, 1, 0.99))
        fig.savefig(out, dpi=110, metadata={"Software": None})
        return
    fig.tight_layout()
    fig.savefig(out, dpi=110, metadata={"Software": None})


if __name__ == "__main__":
    main(sys.argv)
