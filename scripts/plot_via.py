#!/usr/bin/env python3
"""The allreduce gain of RDMA + the degree-k tree over send/receive against node count, from the
analytical model and from the simulation (scenarios/via/allreduce-scale.json, claim C6).

Usage: scripts/plot_via.py TORSIM [PNG]

Runs the scenario, prints a markdown table (latencies and gains, model and simulation, per
node count and size) and, given PNG and matplotlib, draws the gains against node count.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "via", "allreduce-scale.json")
BASELINE = ("send_receive", {"allreduce": "reduce_bcast", "reduce": "binomial"})
IMPROVED = ("rdma", {"allreduce": "reduce_bcast", "reduce": "knomial"})


def points(torsim):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([torsim, "run", SCENARIO, "--out", tmp], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "results.json")) as f:
            return json.load(f)["points"]


def table(pts):
    """{(size, nodes): {"baseline": (sim, model), "improved": (sim, model)}}"""
    out = {}
    for p in pts:
        s, m = p["sweep"], p["metrics"]
        config = (s["runtime.collective_transport"], s["runtime.collectives"])
        name = "baseline" if config == BASELINE else "improved" if config == IMPROVED else None
        if name:
            out.setdefault((s["workload.size"], s["machine.topology.nodes"]), {})[name] = (
                m["per_operation_us"], m["model_us"])
    return out


def gain(base, improved):
    return 100 * (1 - improved / base)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = table(points(sys.argv[1]))
    print("| size | nodes | send/receive, sim / model (us) | RDMA degree-k, sim / model (us) | gain, sim | gain, model |")
    print("|---|---|---|---|---|---|")
    for (size, nodes), r in sorted(rows.items()):
        (bs, bm), (is_, im) = r["baseline"], r["improved"]
        print(f"| {size} B | {nodes} | {bs:.1f} / {bm:.1f} | {is_:.1f} / {im:.1f} | "
              f"{gain(bs, is_):.1f} % | {gain(bm, im):.1f} % |")
    if len(sys.argv) < 3:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for size, paper in [(4, (35, 40)), (4096, (14, 14))]:
        keys = sorted(k for k in rows if k[0] == size)
        nodes = [k[1] for k in keys]
        sim = [gain(rows[k]["baseline"][0], rows[k]["improved"][0]) for k in keys]
        model = [gain(rows[k]["baseline"][1], rows[k]["improved"][1]) for k in keys]
        line, = ax.plot(nodes, sim, marker="o", label=f"{size} B, simulation")
        ax.plot(nodes, model, linestyle="--", marker="x", color=line.get_color(), label=f"{size} B, model")
        ax.errorbar([512, 1024], [sum(paper) / 2] * 2, yerr=(paper[1] - paper[0]) / 2 or None, fmt="*",
                    color=line.get_color(), markersize=12, capsize=4, label=f"{size} B, paper's model")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes (one crossbar)")
    ax.set_ylabel("allreduce gain of RDMA + degree-k (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110, metadata={"Software": None})


if __name__ == "__main__":
    main()
