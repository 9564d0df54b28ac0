#!/usr/bin/env python3
"""Classic results as tests of the packet model with credit flow control.

On an 8x8x8 torus of Hopper's Gemini links (one node per router, dimension-order routing,
dateline channels):

  saturation   accepted vs offered throughput, open loop, for uniform random, transpose,
               bit-complement and tornado traffic, with deep buffers (64 KiB per port and
               channel: the textbook setting, where buffers cover the credit round trip many
               times over): below saturation the network accepts what is offered (within 5 %);
               its saturation throughput lies within 15 % below the channel-load bound of the
               pattern on the routes the topology uses (from the analytic model's per-link busy
               time: the busiest link for the permutations, the busiest class of links
               (dimension, direction) on average for uniform random, whose bound is an
               expectation). With --full, the same with the preset's 8 KiB buffers, reported.
  knee         uniform random latency vs load: flat at low load, several times the zero-load
               latency past saturation.
  hot spot     uniform background traffic plus a share sent to one node whose ejection link it
               oversubscribes (Pfister and Norton, 1985): with finite buffers the full buffers
               spread back into the network (tree saturation) and the background slows down;
               with unbounded buffers it does not.
  deadlock     a long tornado run (every route wraps) with small buffers: completes with the
               dateline channels; reports a deadlock without them (so the check can fail).

  tests/network/classic.py build/torsim                 # the CTest: reduced sweeps
  tests/network/classic.py build/torsim --full --report docs/validation/network.md
"""
import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SATURATION_TOLERANCE = 0.15  # saturation throughput at most 15 % below the channel-load bound
PATTERNS = ["uniform_random", "transpose", "bit_complement", "tornado"]
SIZE = "4KiB"
DEEP = "64KiB"  # buffers per port and channel for the textbook saturation results


def machine(buffer=None, avoidance=None):
    """An 8-ary 3-cube of Hopper's links; router keys only when given (a run without credit flow
    control reads none, and is given none)."""
    spec = {"preset": "hopper", "topology": {"concentration": 1, "dims": {"0": {"size": 8}, "1": {"size": 8},
                                                                         "2": {"size": 8}}}}
    router = {"deadlock_avoidance": avoidance} if avoidance else {}
    if buffer:
        router.update({"buffer_per_vc": buffer, "injection_buffer": buffer})
    if router:
        spec["router"] = router
    return spec


def run(torsim, doc, workdir, name, check=True):
    path = Path(workdir) / f"{name}.json"
    path.write_text(json.dumps(doc))
    out = Path(workdir) / name
    done = subprocess.run([torsim, "run", str(path), "--out", str(out), "--quiet"], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{name}: torsim exited {done.returncode}: {done.stderr}")
    if done.returncode != 0:
        return None, done.stderr
    return json.loads((out / "results.json").read_text())["points"], ""


def traffic(pattern, messages, **extra):
    return dict({"name": "traffic", "pattern": pattern, "size": SIZE, "messages": messages, "window": 1000}, **extra)


def bound_GBps(torsim, pattern, messages, workdir):
    """The pattern's channel-load bound as aggregate payload GB/s: all payload over the busiest
    link's busy time, on the analytic model (same messages, the topology's routes)."""
    doc = {"machine": machine(), "workload": traffic(pattern, messages), "network": {"model": "analytic"},
           "output": {"link_stats": True}}
    points, _ = run(torsim, doc, workdir, f"bound-{pattern}")
    with open(Path(workdir) / f"bound-{pattern}" / "links.csv") as f:
        links = list(csv.DictReader(f))
    if pattern == "uniform_random":  # an expectation: the mean of each class of links
        classes = {}
        for row in links:
            classes.setdefault((row["kind"], row["dim"], row["direction"]), []).append(float(row["busy_us"]))
        busiest_us = max(sum(busy) / len(busy) for busy in classes.values())
    else:
        busiest_us = max(float(row["busy_us"]) for row in links)
    metrics = points[0]["metrics"]
    senders = round(metrics["messages_delivered"] / messages)  # transpose's diagonal sends nothing
    return points[0]["counters"]["payload_bytes"] / busiest_us / 1e3, senders, points[0]["job"]["ranks"]


def load_sweep(torsim, pattern, fractions, messages, workdir, buffer=DEEP):
    """Accepted throughput and mean latency at each offered load (fraction of the bound)."""
    bound, senders, ranks = bound_GBps(torsim, pattern, messages, workdir)
    rates = [f"{fraction * bound / senders:.6f}GB/s" for fraction in fractions]
    network = {"model": "packet", "flow_control": "credit"}
    doc = {"machine": machine(buffer), "workload": traffic(pattern, messages),
           "network": network,
           "sweep": {"workload.offered_rate": rates}}
    points, _ = run(torsim, doc, workdir, f"sweep-{pattern}-{buffer}")
    rows = []
    for fraction, p in zip(fractions, points):
        m = p["metrics"]
        rows.append({"fraction": fraction, "offered_GBps": fraction * bound,
                     "accepted_GBps": m["accepted_GBps_per_rank"] * ranks, "latency_us": m["mean_latency_us"]})
    return bound, rows


def check_saturation(pattern, bound, rows, failures):
    below = [r for r in rows if r["fraction"] <= 0.5]
    for r in below:
        if abs(r["accepted_GBps"] - r["offered_GBps"]) > 0.05 * r["offered_GBps"]:
            failures.append(f"{pattern}: at {r['fraction']:.2f} of the bound the network accepts "
                            f"{r['accepted_GBps']:.1f} GB/s of {r['offered_GBps']:.1f} offered")
    # Past saturation, what a window of the run accepts may exceed the whole run's bound (the
    # messages that cross the busiest link wait at their sources longer than the others), so
    # only the lower side is asserted.
    saturation = max(r["accepted_GBps"] for r in rows)
    ceiling = bound
    if saturation < ceiling * (1 - SATURATION_TOLERANCE):
        failures.append(f"{pattern}: saturates at {saturation:.1f} GB/s, {100 * (1 - saturation / ceiling):.0f} % "
                        f"below the channel-load bound {ceiling:.1f} GB/s")
    return saturation


def check_knee(rows, failures):
    lowest = min(rows, key=lambda r: r["fraction"])
    highest = max(rows, key=lambda r: r["fraction"])
    half = min(rows, key=lambda r: abs(r["fraction"] - 0.5))
    if half["latency_us"] > 2 * lowest["latency_us"]:
        failures.append(f"knee: latency at half load {half['latency_us']:.1f} us, more than twice "
                        f"{lowest['latency_us']:.1f} us at {lowest['fraction']:.2f}")
    if highest["latency_us"] < 4 * lowest["latency_us"]:
        failures.append(f"knee: latency past saturation {highest['latency_us']:.1f} us, not four times "
                        f"{lowest['latency_us']:.1f} us")


def hot_spot(torsim, workdir, messages, failures):
    """Background latency with and without a hot spot, finite and unbounded buffers."""
    bound, senders, _ = bound_GBps(torsim, "uniform_random", messages, workdir)
    rate = f"{0.3 * bound / senders:.6f}GB/s"  # the background alone is well below saturation
    out = {}
    for name, network in (("finite", {"model": "packet", "flow_control": "credit"}),
                          ("unbounded", {"model": "packet", "flow_control": "none"})):
        for hot in (0.0, 0.04):
            doc = {"machine": machine(), "network": network,
                   "workload": traffic("hot_spot", messages, offered_rate=rate, hot_fraction=hot)}
            points, _ = run(torsim, doc, workdir, f"hot-{name}-{hot}")
            out[(name, hot)] = points[0]["metrics"]["background_mean_latency_us"]
    finite = out[("finite", 0.04)] / out[("finite", 0.0)]
    unbounded = out[("unbounded", 0.04)] / out[("unbounded", 0.0)]
    if finite < 3:
        failures.append(f"hot spot: with finite buffers the background latency grows only {finite:.2f}x")
    if unbounded > 1.5:
        failures.append(f"hot spot: with unbounded buffers the background latency grows {unbounded:.2f}x")
    return out


def deadlock(torsim, workdir, messages, failures):
    """Tornado traffic (every route takes a wrap-around link) with two-packet buffers."""
    out = {}
    for avoidance in ("dateline", "none"):
        doc = {"machine": machine("192B", avoidance), "network": {"model": "packet", "flow_control": "credit"},
               "workload": {"name": "traffic", "pattern": "tornado", "size": "64KiB", "messages": messages,
                            "window": 4}}
        points, error = run(torsim, doc, workdir, f"deadlock-{avoidance}", check=False)
        # The message without its temporary file name: from the JSON path on.
        out[avoidance] = points[0]["metrics"]["completion_time_us"] if points else error.strip().split(": at ", 1)[-1]
    if not isinstance(out["dateline"], float):
        failures.append(f"deadlock: the dateline run did not complete: {out['dateline']}")
    if "deadlock" not in str(out["none"]):
        failures.append(f"deadlock: without the dateline the run should deadlock, got {out['none']}")
    return out


def kept_sections(path):
    """The section tests/network/booksim.py writes into the same report, kept as it is."""
    begin, end = "<!-- booksim:begin -->", "<!-- booksim:end -->"
    text = Path(path).read_text() if Path(path).exists() else ""
    if begin not in text or end not in text:
        return ""
    return "\n" + begin + text.split(begin, 1)[1].split(end, 1)[0] + end + "\n"


def report(path, sweeps, preset, hot, dead, command):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    directory = Path(path).parent
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for pattern, (bound, rows, saturation) in sweeps.items():
        line, = axes[0].plot([r["fraction"] for r in rows], [r["accepted_GBps"] / bound for r in rows], "o-",
                             label=f"{pattern}, {DEEP}")
        axes[1].plot([r["fraction"] for r in rows], [r["latency_us"] for r in rows], "o-", color=line.get_color(),
                     label=f"{pattern}, {DEEP}")
        if pattern in preset:
            rows8 = preset[pattern][1]
            axes[0].plot([r["fraction"] for r in rows8], [r["accepted_GBps"] / bound for r in rows8], "s--",
                         color=line.get_color(), label=f"{pattern}, 8 KiB")
            axes[1].plot([r["fraction"] for r in rows8], [r["latency_us"] for r in rows8], "s--",
                         color=line.get_color(), label=f"{pattern}, 8 KiB")
    axes[0].axhline(1.0, color="black", linestyle=":", linewidth=1)
    axes[0].set_xlabel("offered load / channel-load bound")
    axes[0].set_ylabel("accepted / channel-load bound")
    axes[1].set_xlabel("offered load / channel-load bound")
    axes[1].set_ylabel("mean latency (us, from creation)")
    axes[1].set_yscale("log")
    for a in axes:
        a.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(directory / "network-saturation.png", dpi=110)
    lines = ["# Network model: classic results", "",
             f"Generated by `{command}`; do not edit by hand. The packet model with credit flow control on an "
             "8x8x8 torus with Hopper's Gemini links (X and Z 9.375 GB/s, Y 4.68 GB/s, 105 ns per hop), one "
             "node per router, dimension-order routing with dateline channels, 4 KiB messages offered open "
             "loop (each rank creates messages at a fixed rate with a random phase; latency counts from "
             "creation; the accepted throughput is measured over the middle half of the creation span). The "
             "channel-load bound of a pattern is its payload over the busiest link's busy time on the "
             "topology's routes (for uniform random, the busiest class of links on average). Solid: buffers of "
             f"{DEEP} per port and channel (the textbook setting, asserted); dashed: the Hopper preset's "
             "assumed 8 KiB (reported).", "",
             "## Accepted throughput and latency vs offered load", "", "![saturation](network-saturation.png)", "",
             "| pattern | buffers | channel-load bound (GB/s) | saturation (GB/s) | below the bound | accepted at "
             "the highest load | latency at the lowest / half / highest load (us) |", "|---|---|---|---|---|---|---|"]
    for label, table in ((DEEP, sweeps), ("8 KiB", preset)):
        for pattern, (bound, rows, saturation) in table.items():
            by = {r["fraction"]: r for r in rows}
            half = min(by, key=lambda f: abs(f - 0.5))
            lat = " / ".join(f"{by[f]['latency_us']:.1f}" for f in (min(by), half, max(by)))
            lines.append(f"| {pattern} | {label} | {bound:.1f} | {saturation:.1f} | "
                         f"{100 * (1 - saturation / bound):.1f} % | {by[max(by)]['accepted_GBps'] / bound:.2f} "
                         f"of the bound | {lat} |")
    lines += ["", "## Hot spot: tree saturation", "",
              "Uniform random background at 30 % of its channel-load bound; with the hot spot, each message goes "
              "to rank 0 with probability 0.04, which offers rank 0's ejection link about 2.5 times its "
              "bandwidth. Mean latency of the background messages (those to other ranks), the preset's "
              "8 KiB buffers (finite) and the packet model without flow control (unbounded):", "",
              "| buffers | no hot spot (us) | hot spot (us) | ratio |", "|---|---|---|---|"]
    for name in ("finite", "unbounded"):
        lines.append(f"| {name} | {hot[(name, 0.0)]:.2f} | {hot[(name, 0.04)]:.2f} | "
                     f"{hot[(name, 0.04)] / hot[(name, 0.0)]:.2f} |")
    lines += ["", "## Deadlock", "",
              "Tornado traffic (each coordinate + 3, so every route of the 8-rings takes a wrap-around link), 64 KiB "
              "messages, buffers of two packets (192 B):", "",
              f"- dateline channels: completes, {dead['dateline']:.1f} us simulated" if isinstance(dead["dateline"], float)
              else f"- dateline channels: {dead['dateline']}",
              f"- one channel (`deadlock_avoidance: none`): `{dead['none']}`"]
    Path(path).write_text("\n".join(lines) + "\n" + kept_sections(path))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("torsim")
    ap.add_argument("--full", action="store_true", help="every load point, longer runs, the preset's buffers (minutes)")
    ap.add_argument("--report", help="write the markdown report here and its plot beside it")
    args = ap.parse_args()
    fractions = [0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.2, 1.5] if args.full else [0.1, 0.5, 1.2]
    messages = 200 if args.full else 60
    failures = []
    sweeps, preset = {}, {}
    with tempfile.TemporaryDirectory() as workdir:
        for pattern in PATTERNS:
            bound, rows = load_sweep(args.torsim, pattern, fractions, messages, workdir)
            saturation = check_saturation(pattern, bound, rows, failures)
            sweeps[pattern] = (bound, rows, saturation)
            if args.full:
                rows8 = load_sweep(args.torsim, pattern, fractions, messages, workdir, buffer=None)[1]
                preset[pattern] = (bound, rows8, max(r["accepted_GBps"] for r in rows8))
            print(f"{pattern:15s} bound {bound:8.1f} GB/s, saturation {saturation:8.1f} GB/s; "
                  + ", ".join(f"{r['fraction']:.1f}: {r['accepted_GBps']:.1f} GB/s {r['latency_us']:.1f} us" for r in rows),
                  flush=True)
        check_knee(sweeps["uniform_random"][1], failures)
        hot = hot_spot(args.torsim, workdir, messages, failures)
        print("hot spot, background latency (us):", {f"{k[0]} {k[1]}": round(v, 2) for k, v in hot.items()}, flush=True)
        dead = deadlock(args.torsim, workdir, 20 if args.full else 6, failures)
        print("deadlock:", dead, flush=True)
    if args.report:
        command = "tests/network/classic.py build/torsim" + (" --full" if args.full else "") + f" --report {args.report}"
        report(args.report, sweeps, preset, hot, dead, command)
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
