#!/usr/bin/env python3
"""Figures and the sensitivity table of docs/models/infiniband.md, from torsim runs.

    python3 docs/models/infiniband_figures.py build/torsim [--sensitivity]

Runs the scenarios under scenarios/ib/ (and variants with --set), writes the PNGs into
docs/models/infiniband/ and prints the numbers the page quotes; with --sensitivity, also the
table of the assumed parameters' effects (one torsim run per row and metric).
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "models" / "infiniband"
ENGINES = ["dmodk", "minhop", "random", "adaptive"]


def run(torsim, scenario, *sets):
    with tempfile.TemporaryDirectory() as out:
        args = [torsim, "run", str(ROOT / scenario), "--out", out, "--quiet"]
        for s in sets:
            args += ["--set", s]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        return json.loads((pathlib.Path(out) / "results.json").read_text())["points"]


def series(point, name):
    s = point["series"][name]
    return s["columns"], s["rows"]


def latency_by_hops(torsim):
    points = run(torsim, "scenarios/ib/qdr-latency-map.json")
    _, rows = series(points[0], "latency_map")
    by_hops = {}
    for _, _, hops, latency in rows:
        by_hops.setdefault(int(hops), []).append(latency)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r[0] for r in rows], [r[3] for r in rows], ".", label="MPI 8 B, node 0 to each node")
    ax.set_xlabel("destination node")
    ax.set_ylabel("one-way latency (us)")
    ax.set_title("QDR cluster: latency from node 0 (0 or 2 switch hops)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(OUT / "latency_map.png", dpi=110)
    pingpong = run(torsim, "scenarios/ib/qdr-pingpong.json")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    table = {}
    for p in pingpong:
        layer, peer = p["sweep"]["runtime.layer"], p["sweep"]["workload.peer"]
        _, rows = series(p, "latency")
        label = f"{layer}, {'same leaf' if peer == 1 else 'across the spine'}"
        ax.loglog([r[0] for r in rows], [r[1] for r in rows], "o-" if peer == 1 else "s--", label=label, ms=3)
        table[label] = rows[0][1]
    ax.set_xlabel("message size (B)")
    ax.set_ylabel("one-way latency (us)")
    ax.set_title("QDR cluster: ping-pong, verbs and MPI")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(OUT / "pingpong.png", dpi=110)
    print("latency by hops (us):", {h: round(sum(v) / len(v), 4) for h, v in sorted(by_hops.items())})
    print("8 B ping-pong (us):", {k: round(v, 4) for k, v in table.items()})


def stream_bandwidth(torsim):
    points = run(torsim, "scenarios/ib/qdr-bandwidth.json")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for p in points:
        generation = p["sweep"]["machine.nic.pcie.generation"]
        _, rows = series(p, "bandwidth")
        ax.semilogx([r[0] for r in rows], [r[1] for r in rows], "o-", ms=3,
                    label=f"MPI stream, HCA on PCIe gen{generation} x8")
        print(f"gen{generation} x8 peak (MB/s):", round(max(r[1] for r in rows), 1))
    wire = 4e9 * 2048 / 2074 / 1e6
    gen2_writes = 4e9 * 256 / 280 / 1e6
    ax.axhline(wire, color="k", ls=":", label=f"QDR wire, 2 KiB MTU: {wire:.0f} MB/s")
    ax.axhline(gen2_writes, color="r", ls=":", label=f"PCIe gen2 x8 writes, 256 B TLPs: {gen2_writes:.0f} MB/s")
    ax.set_xlabel("message size (B)")
    ax.set_ylabel("bandwidth (MB/s)")
    ax.set_title("One stream: the narrower of the wire and PCIe")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(OUT / "stream_bandwidth.png", dpi=110)
    wilkes = run(torsim, "scenarios/ib/wilkes-mpi.json")
    _, rows = series(wilkes[1], "latency")
    print("wilkes ping-pong across the spines, bandwidth of the largest sizes (MB/s):",
          [(int(r[0]), round(r[2], 1)) for r in rows[-3:]])


def routing_engines(torsim):
    shift = run(torsim, "scenarios/ib/qdr-shift.json")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for engine in ENGINES:
        pts = sorted((p["sweep"]["workload.distance"], p["metrics"]["per_source_throughput_min_MBps"])
                     for p in shift if p["sweep"]["machine.topology.routing"] == engine)
        style = {"dmodk": dict(lw=4, alpha=0.4), "adaptive": dict(lw=1, ls="--")}.get(engine, dict(lw=1))
        ax.plot([d for d, _ in pts], [v for _, v in pts], label=engine, **style)
        print(f"shift, {engine}: slowest flow over all distances {min(v for _, v in pts):.0f} MB/s, "
              f"mean of the slowest flows {sum(v for _, v in pts) / len(pts):.0f} MB/s")
    ax.set_xlabel("shift distance")
    ax.set_ylabel("slowest flow (MB/s)")
    ax.set_title("QDR cluster fabric: shift i -> i+d, 64 KiB messages")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(OUT / "shift.png", dpi=110)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.2
    cases = [(scenario, label, credits) for scenario, label in
             [("scenarios/ib/qdr-bisection.json", "144 nodes (8 x 18)"),
              ("scenarios/ib/director-bisection.json", "648 nodes (36 x 18)")] for credits in (False, True)]
    for k, (scenario, label, credits) in enumerate(cases):
        values = [bisection_fraction(torsim, scenario, engine, credits) for engine in ENGINES]
        label += ", credit flow control" if credits else ""
        ax.bar([i + (k - 1.5) * width for i in range(len(ENGINES))], values, width, label=label,
               hatch="//" if credits else None)
        print(f"effective bisection fraction, {label}:", dict(zip(ENGINES, [round(v, 3) for v in values])))
    ax.set_xticks(range(len(ENGINES)), ENGINES)
    ax.set_ylabel("effective bisection bandwidth / lone pair")
    ax.set_ylim(0, 1)
    ax.set_title("Effective bisection bandwidth by routing engine")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(OUT / "bisection.png", dpi=110)


def bisection_fraction(torsim, scenario, engine, credits):
    """Credit flow control's adaptive routing keeps an escape virtual lane beside the adaptive one."""
    sets = ["sweep={}", f"machine.topology.routing={engine}"]
    if credits:
        sets.append("network.flow_control=credit")
        if engine == "adaptive":
            sets.append("machine.router.virtual_channels=2")
    return run(torsim, scenario, *sets)[0]["metrics"]["effective_bisection_fraction"]


# (parameter, value shown, --set assignments); the first row is the preset as it is.
SENSITIVITY = [
    ("preset (qdr-cluster)", "", []),
    ("nic.pcie.latency", "75 ns / 300 ns", ["machine.nic.pcie.latency=75ns", "machine.nic.pcie.latency=300ns"]),
    ("nic.pcie.read_latency", "150 ns / 600 ns",
     ["machine.nic.pcie.read_latency=150ns", "machine.nic.pcie.read_latency=600ns"]),
    ("nic.pcie.max_payload", "128 B", ["machine.nic.pcie.max_payload=128B"]),
    ("nic.send_latency, receive_latency", "100 ns / 400 ns",
     ["machine.nic.send_latency=100ns,machine.nic.receive_latency=100ns",
      "machine.nic.send_latency=400ns,machine.nic.receive_latency=400ns"]),
    ("nic.post_send_cpu", "50 ns / 200 ns", ["machine.nic.post_send_cpu=50ns", "machine.nic.post_send_cpu=200ns"]),
    ("nic.max_inline", "0 B", ["machine.nic.max_inline=0B"]),
    ("topology.link_latency", "200 ns", ["machine.topology.link_latency=200ns"]),
    ("packet.payload (MTU)", "4 KiB", ["machine.packet.payload=4KiB"]),
    ("node.memcpy_bandwidth", "10 GB/s", ["machine.node.memcpy_bandwidth=10GB/s"]),
    ("runtimes.mpi.fast_path_size", "0 B (no fast path)", ["machine.runtimes.mpi.fast_path_size=0B"]),
    ("runtimes.mpi.eager_limit", "4 KiB / 20 KiB",
     ["machine.runtimes.mpi.eager_limit=4KiB", "machine.runtimes.mpi.eager_limit=20KiB"]),
    ("runtimes.mpi.rendezvous", "rget", ["machine.runtimes.mpi.rendezvous=rget"]),
    ("topology.lid_order", "node", ["machine.topology.lid_order=node"]),
    ("topology.routing_seed", "2 / 3", ["machine.topology.routing_seed=2", "machine.topology.routing_seed=3"]),
]


def metrics(torsim, assignment):
    sets = [s for s in assignment.split(",") if s]
    pp = run(torsim, "scenarios/ib/qdr-pingpong.json", "sweep={}", "runtime.layer=mpi", "workload.peer=2",
             "workload.sizes=[8,8192,65536]", *sets)[0]
    _, rows = series(pp, "latency")
    bw = run(torsim, "scenarios/ib/qdr-bandwidth.json", "sweep={}", "workload.sizes=[1048576]", *sets)[0]
    ebb = run(torsim, "scenarios/ib/qdr-bisection.json", "sweep={}", "machine.topology.routing=minhop",
              "workload.pairings=10", *sets)[0]
    return [rows[0][1], rows[1][1], rows[2][1], bw["metrics"]["peak_bandwidth_MBps"],
            ebb["metrics"]["effective_bisection_fraction"]]


def sensitivity(torsim):
    print("| parameter (preset value -> tried) | tried | MPI 8 B (us) | MPI 8 KiB (us) | MPI 64 KiB (us) "
          "| stream 1 MiB (MB/s) | minhop EBB |")
    print("|---|---|---|---|---|---|---|")
    for name, shown, assignments in SENSITIVITY:
        for k, assignment in enumerate(assignments or [""]):
            m = metrics(torsim, assignment)
            tried = shown.split(" / ")[k] if shown else "-"
            print(f"| {name} | {tried} | {m[0]:.3f} | {m[1]:.3f} | {m[2]:.3f} | {m[3]:.0f} | {m[4]:.3f} |")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    torsim = sys.argv[1]
    OUT.mkdir(parents=True, exist_ok=True)
    latency_by_hops(torsim)
    stream_bandwidth(torsim)
    routing_engines(torsim)
    if "--sensitivity" in sys.argv:
        sensitivity(torsim)
    return 0


if __name__ == "__main__":
    sys.exit(main())
