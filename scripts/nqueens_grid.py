#!/usr/bin/env python3
"""N-Queens' uGNI-over-MPI gain over the (board, grainsize) grid at 15,360 cores
(scenarios/scale/xe6-nqueens-grid.json, claim C2), from a run's results.json.

Usage: scripts/nqueens_grid.py RESULTS_DIR [PNG]

Prints a markdown table, one row per (board, grainsize): the time to quiescence on each layer,
the gain (T_MPI / T_uGNI - 1), the messages per PE, the distinct peers per PE and the
connection set-up's share of the MPI run's core time. Given PNG and matplotlib, draws the gain
as a heat map over the grid. Peers per PE: each MPI connection costs `connect_cpu` of core time
on each of its two ranks, so connections per rank = connection core time / (connect_cpu x
ranks); a connection is made once per pair of ranks on different nodes that exchange a message,
either way, so this is the mean number of distinct off-node peers of a rank.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from torsim.plot import quantity  # noqa: E402  (the units a scenario's values take)


def microseconds(text):
    q = quantity(text)
    if not q or q[0] != "time":
        sys.exit(f"connect_cpu '{text}': expected a duration such as 4us")
    return q[1] / 1e6  # picoseconds to microseconds


def load(directory):
    with open(os.path.join(directory, "results.json")) as f:
        return json.load(f)


def grid(doc):
    """{(board, grain): {layer: point}}"""
    out = {}
    for p in doc["points"]:
        s = p["sweep"]
        out.setdefault((s["workload.board"], s["workload.grain"]), {})[s["runtime.layer"]] = p
    return out


def row(mpi, ugni, connect_us):
    core = mpi["counters"]["core_time_us"]
    ranks = mpi["job"]["ranks"]
    t_mpi, t_ugni = mpi["metrics"]["time_ms"], ugni["metrics"]["time_ms"]
    return {"mpi_ms": t_mpi, "ugni_ms": t_ugni, "gain": 100 * (t_mpi / t_ugni - 1),
            "messages": mpi["metrics"]["messages_per_pe"], "work_us": mpi["metrics"]["mean_leaf_work_us"],
            "peers": core["connection"] / (connect_us * ranks),
            "connection_share": 100 * core["connection"] / sum(core.values())}


def table(doc):
    connect_us = microseconds(doc["scenario"]["spec"]["machine"]["runtimes"]["mpi"]["connect_cpu"])
    return {key: row(layers["charm_mpi"], layers["charm_ugni"], connect_us)
            for key, layers in sorted(grid(doc).items())}


def print_markdown(rows):
    print("| board | grain | MPI (ms) | uGNI (ms) | gain | messages per PE | peers per PE | "
          "leaf work (us) | connection, share of MPI core time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (board, grain), r in rows.items():
        print(f"| {board} | {grain} | {r['mpi_ms']:.3g} | {r['ugni_ms']:.3g} | {r['gain']:.0f} % | "
              f"{r['messages']:.3g} | {r['peers']:.3g} | {r['work_us']:.3g} | {r['connection_share']:.0f} % |")


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    boards = sorted({b for b, _ in rows})
    grains = sorted({g for _, g in rows})
    gains = [[rows[(b, g)]["gain"] for g in grains] for b in boards]
    fig, ax = plt.subplots(figsize=(5.5, 4))
    image = ax.imshow(gains, origin="lower", cmap="viridis", aspect="auto")
    for i, b in enumerate(boards):
        for j, g in enumerate(grains):
            r = rows[(b, g)]
            ax.text(j, i, f"{r['gain']:.0f} %\n{r['messages']:.3g} msg/PE\n{r['work_us']:.3g} us/leaf",
                    ha="center", va="center",
                    fontsize=7, color="white" if r["gain"] < 0.6 * max(map(max, gains)) else "black")
    ax.set_xticks(range(len(grains)), [str(g) for g in grains])
    ax.set_yticks(range(len(boards)), [str(b) for b in boards])
    ax.set_xlabel("grainsize (chares for boards of 1 to grainsize-1 rows)")
    ax.set_ylabel("board (queens)")
    ax.set_title("N-Queens at 15,360 cores: uGNI over MPI, T_MPI / T_uGNI - 1", fontsize=9)
    fig.colorbar(image, ax=ax, label="gain (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = table(load(sys.argv[1]))
    print_markdown(rows)
    if len(sys.argv) > 2:
        plot(rows, sys.argv[2])


if __name__ == "__main__":
    main()
