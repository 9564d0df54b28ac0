#!/usr/bin/env python3
"""Sensitivity of the VIA claims (C4, C5, C6) to the clan-16 preset's assumed parameters.

Usage: scripts/via_sensitivity.py TORSIM [--markdown]

Each assumption is halved and doubled (a boolean is flipped) on top of the preset; every
variant keeps the calibration: nic_latency is derived again so that VIPL's one-way latency
stays 14.2 us, and the link rate so that the peak stays 87.7 MB/s (the last row replaces both
calibration points by the Linux estimates instead). For each variant it runs the claims'
scenarios at the claims' points and prints the gains: C4 (broadcast, 4 KB, 16 nodes), C5
(allreduce, 4 B and 4 KB, 16 nodes), C6 (the model's allreduce gain at 1024 nodes, 4 B and
4 KB; 512 nodes gives the same within a point). About a minute.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESET = os.path.join(ROOT, "scenarios", "machines", "clan-16.json")

LATENCY_US = 14.2  # Jacobson, MacDonald, Du 2000: VIA over cLAN, lowest one-way latency
PEAK_MBPS = 87.7   # same source: peak throughput
SR = {"allreduce": "reduce_bcast", "reduce": "binomial"}
DEGREE_K = {"allreduce": "reduce_bcast", "reduce": "knomial"}

# (label, dotted path in the machine, variants); times in ns, rates in MB/s, bytes in B.
ASSUMPTIONS = [
    ("VIA post (VipPostSend/Recv)", "nic.post_cpu", "ns", [250, 1000]),
    ("completion poll", "nic.completion_poll_cpu", "ns", [250, 1000]),
    ("flag poll", "nic.flag_poll_cpu", "ns", [100, 400]),
    ("receive descriptor (target NIC)", "nic.receive_descriptor", "ns", [250, 1000]),
    ("MPI send and receive paths", "runtimes.via_mpi.send_cpu+recv_cpu", "ns", [500, 2000]),
    ("MPI matching", "runtimes.via_mpi.match_cpu", "ns", [100, 400]),
    ("MPI header", "runtimes.via_mpi.header", "B", [16, 64]),
    ("memory copy rate", "node.memcpy_bandwidth", "MB/s", [200, 800, 1600]),
    ("reduction rate (ns per byte)", "compute.reduction_byte", "ns", [1.25, 5]),
    ("switch latency", "topology.link_latency", "ns", [250, 1000]),
    ("user buffers registered", "runtimes.via_mpi.user_buffers_registered", "", [False]),
]


def load_preset():
    with open(PRESET) as f:
        return json.load(f)


def ns(text):
    value, unit = float(text.rstrip("nsu")), text[-2:]
    return value * 1000 if unit == "us" else value


def set_path(machine, path, value, unit):
    *parents, key = path.split(".")
    node = machine
    for p in parents:
        node = node[p]
    if key == "send_cpu+recv_cpu":
        node["send_cpu"] = node["recv_cpu"] = f"{value}ns"
    elif unit == "ns":
        node[key] = f"{value}ns"
    elif unit == "MB/s":
        node[key] = f"{value}MB/s"
    elif unit == "B":
        node[key] = f"{value}B"
    else:
        node[key] = value


def calibrate(machine, latency_us, peak_mbps):
    """Derives the wire rate and nic_latency from the two calibration points, as the preset does."""
    packet = machine["packet"]
    payload, header = 4096, int(packet["header"].rstrip("B"))
    rate = peak_mbps * (payload + header) / payload  # MB/s on the wire
    machine["node"]["injection_bandwidth"] = machine["node"]["ejection_bandwidth"] = f"{rate:.2f}MB/s"
    rate_bps = float(f"{rate:.2f}") * 1e6
    nic = machine["nic"]
    wire_ns = (4 + header) / rate_bps * 1e9
    host_ns = 2 * ns(nic["post_cpu"]) + ns(nic["completion_poll_cpu"]) + ns(nic["receive_descriptor"])
    nic_ns = latency_us * 1000 - host_ns - wire_ns - ns(machine["topology"]["link_latency"])
    machine["node"]["nic_latency"] = f"{nic_ns:.0f}ns"


def run(torsim, machine, workload, sweep, tmp):
    scenario = {"machine": machine, "runtime": {"layer": "via_mpi"}, "workload": workload, "sweep": sweep}
    path = os.path.join(tmp, "scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(tmp, "out")
    subprocess.run([torsim, "run", path, "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)["points"]


def pick(points, metric, **where):
    for p in points:
        if all(p["sweep"].get(k.replace("__", ".")) == v for k, v in where.items()):
            return p["metrics"][metric]
    raise KeyError(where)


def gain(base, improved):
    return 100 * (1 - improved / base)


def gains(torsim, machine, tmp):
    bcast = run(torsim, machine, {"name": "collective", "operation": "bcast"},
                {"runtime.collective_transport": ["send_receive", "rdma"], "workload.size": [4096]}, tmp)
    c4 = gain(pick(bcast, "per_operation_us", runtime__collective_transport="send_receive"),
              pick(bcast, "per_operation_us", runtime__collective_transport="rdma"))
    allreduce = run(torsim, machine, {"name": "collective", "operation": "allreduce"},
                    {"machine.topology.nodes": [16, 1024], "runtime.collective_transport": ["send_receive", "rdma"],
                     "runtime.collectives": [SR, DEGREE_K], "workload.size": [4, 4096]}, tmp)
    row = [c4]
    for nodes, metric in [(16, "per_operation_us"), (1024, "model_us")]:
        for size in (4, 4096):
            def at(transport, collectives):
                return pick(allreduce, metric, machine__topology__nodes=nodes, workload__size=size,
                            runtime__collective_transport=transport, runtime__collectives=collectives)
            row.append(gain(at("send_receive", SR), at("rdma", DEGREE_K)))
    return row


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torsim = sys.argv[1]
    header = ["assumption (preset value)", "variant", "C4 4 KB", "C5 4 B", "C5 4 KB", "C6 model 4 B", "C6 model 4 KB"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = load_preset()
        rows.append(["preset", "-"] + gains(torsim, base, tmp))
        for label, path, unit, variants in ASSUMPTIONS:
            for value in variants:
                machine = load_preset()
                set_path(machine, path, value, unit)
                calibrate(machine, LATENCY_US, PEAK_MBPS)
                rows.append([label, f"{value} {unit}".strip()] + gains(torsim, machine, tmp))
        machine = load_preset()
        calibrate(machine, 8.5, 105)
        rows.append(["calibration points", "Linux VIPL estimate: 8.5 us, 105 MB/s"] + gains(torsim, machine, tmp))
    paper = ["paper", "", 14, 38, 9, 37.5, 14]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in [paper] + rows:
        cells = [f"{c:.1f}" if isinstance(c, float) else str(c) for c in row]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
