#!/usr/bin/env python3
"""Draws one PNG per claim of a validation.json written by `torsim validate`.

Usage: plot_report.py VALIDATION_JSON OUTPUT_DIR
Prints the id of every claim it drew, one per line (torsim links those in the report).
The simulated curves are drawn with the paper's claim marked: its value and tolerance band
for absolute checks, the claimed gain and its +/-10 point band for gain checks, the crossover
for trends.
"""
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import torsim  # noqa: E402  (python/torsim, docs/python.md)

STATUS_COLOURS = {"reproduced": "tab:green", "not reproduced": "tab:red", "not yet modelled": "tab:gray"}


def axis_scales(ax, plot, log_y_key="log_y"):
    if plot.get("log_x"):
        ax.set_xscale("log", base=2)
    if plot.get(log_y_key):
        ax.set_yscale("log")


def draw_curves(ax, claim, panel=None):
    """All the claim's curves, or a panel's: {"curves": [names], and any of x_label, y_label,
    log_x, log_y}; with "paired": true, curves go by twos (the improved one, then its
    baseline) in one colour, the second dashed."""
    plot = dict(claim.get("plot", {}), **(panel or {}))
    labels = plot.get("labels", {})
    names = panel["curves"] if panel else sorted(claim["curves"])
    for i, name in enumerate(names):
        curve = claim["curves"][name]
        style = {}
        if plot.get("paired"):
            style = {"color": f"C{(i // 2) % 10}", "linestyle": "--" if i % 2 else "-"}
        ax.plot(curve["x"], curve["y"], marker="o", markersize=3, label=labels.get(name, name), **style)
    for check in claim["checks"]:
        if panel and check["improved"] not in names:
            continue
        if check["rule"] == "absolute":
            # The paper's value at its x, with the 15 % band around it.
            value = check["expected"]
            ax.errorbar([check["at"]], [value], yerr=[[value * 0.15], [value * 0.15]], fmt="*", color="black",
                        markersize=12, capsize=4, label=f"paper {check['label'] or ''}".strip())
        if check["rule"] == "trend" and "crossover" in check:
            ax.axvline(check["crossover"], color="black", linestyle=":", label="claimed crossover")
    ax.set_xlabel(plot.get("x_label", "x"))
    ax.set_ylabel(plot.get("y_label", "y"))
    axis_scales(ax, plot)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6 if len(names) > 8 else 8, ncol=2 if len(names) > 8 else 1)


def draw_gains(ax, claim):
    for check in claim["checks"]:
        if "gains" not in check:
            continue
        label = check["label"] or "simulated gain"
        line, = ax.plot(check["gains"]["x"], check["gains"]["y"], marker="o", markersize=3, label=label)
        expected = check["expected"]
        if check["rule"] == "gain_at":
            ax.errorbar([check["at"]], [expected], yerr=10, fmt="*", color=line.get_color(), markersize=12,
                        capsize=4, label=f"paper: {expected:g} % at {check['at']:g}")
        else:
            ax.axhline(expected, color=line.get_color(), linestyle="--", label=f"paper: up to {expected:g} %")
            ax.axhspan(expected - 10, expected + 10, color=line.get_color(), alpha=0.12)
    ax.set_ylabel(f"gain (%), {claim['checks'][0]['gain']}")
    ax.set_xlabel(claim.get("plot", {}).get("x_label", "x"))
    axis_scales(ax, claim.get("plot", {}), log_y_key="never")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def draw_speedups(ax, claim):
    """Strong scaling: each curve's speedup over its own smallest point, against ideal."""
    labels = claim.get("plot", {}).get("labels", {})
    for name, curve in sorted(claim["curves"].items()):
        ax.plot(curve["x"], [curve["y"][0] / y for y in curve["y"]], marker="o", markersize=3, label=labels.get(name, name))
    x = sorted({v for curve in claim["curves"].values() for v in curve["x"]})
    ax.plot(x, [v / x[0] for v in x], color="gray", linestyle=":", label="ideal")
    ax.set_ylabel(f"strong-scaling speedup over x = {x[0]:g}")
    ax.set_xlabel(claim["plot"].get("x_label", "x"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def draw_breakdowns(ax, claim):
    """Where the time goes: one stacked bar per curve and breakdown x (the claim's "breakdown"
    parts, e.g. communication, computation and packing)."""
    labels = claim.get("plot", {}).get("labels", {})
    bars = [(labels.get(name, name), b) for name, by_x in sorted(claim.get("breakdowns", {}).items()) for b in by_x]
    parts = list(dict.fromkeys(part for _, b in bars for part in b["parts"]))
    bottoms = [0.0] * len(bars)
    for i, part in enumerate(parts):
        heights = [b["parts"].get(part, 0.0) for _, b in bars]
        ax.bar(range(len(bars)), heights, bottom=bottoms, color=f"C{i % 10}", label=part)
        bottoms = [low + h for low, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(bars)), [f"{label}\nx = {b['x']:g}" for label, b in bars], fontsize=7)
    ax.set_ylabel(bars[0][1]["unit"] if bars else "")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)


def draw(claim, out_dir):
    plot = claim.get("plot", {})
    panels = [draw_curves]
    if plot.get("panels"):
        panels = [lambda ax, c, p=p: draw_curves(ax, c, p) for p in plot["panels"]]
    if any("gains" in c for c in claim["checks"]):
        panels.append(draw_gains)
    if plot.get("speedup_panel"):
        panels.append(draw_speedups)
    if plot.get("breakdown_panel") and claim.get("breakdowns"):
        panels.append(draw_breakdowns)
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 1.2 + 2.9 * len(panels)), squeeze=False)
    for panel, ax in zip(panels, axes[:, 0]):
        panel(ax, claim)
    scale = "reduced scale" if claim["scale"] == "reduced" else "full scale"
    title = textwrap.fill(f"{claim['id']}: {claim['quantity']}", 90)
    fig.suptitle(f"{title}\n{claim['status']} ({scale})", fontsize=9,
                 color=STATUS_COLOURS.get(claim["status"], "black"))
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, f"{claim['id']}.png"), dpi=110, metadata={"Software": None})
    plt.close(fig)


def main(path, out_dir):
    for claim in torsim.read_validation(path).claims:
        if claim["curves"]:
            draw(claim, out_dir)
            print(claim["id"])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
