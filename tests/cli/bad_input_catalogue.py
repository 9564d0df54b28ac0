#!/usr/bin/env python3
"""The bad-input catalogue: every class of bad input torsim must stop on, and how.

Each case is a scenario (or command line, or environment) that must end with exit code 2, a
message `error: FILE: at PATH: ...` naming the file, the JSON path and what was expected, and
nothing written (no output directory, no stray file anywhere). tests/cli/test_bad_input.py runs
them all; `python3 tests/cli/bad_input_catalogue.py > docs/bad-input.md` writes the table of
docs/bad-input.md (a test checks it is current).

Fields of a case: `what` (the class, for the table), `scenario` (a dict, or JSON text as a
string), `args` (more arguments; "{dir}" is the test's scratch directory, "{out}" the output
directory, given as --out unless `out` is False), `command` ("run" by default), `file`, `path` and `expect` (what the message must
say), `files` (a function writing the case's input files, traces, into the scratch directory) and
`special` (a test method of its own, for what needs more than a command: a full disk, a killed
run).
"""
import copy
import os
import shutil
import sys

PINGPONG = {"machine": "hopper", "placement": {"node_list": [0, 2]},
            "workload": {"name": "pingpong", "sizes": [8, 4096], "iterations": 2}}


# A trace the replay cases read (absolute: the scenario is written to a scratch directory).
AMG = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "data", "traces", "dumpi-amg27-hopper"))
TI_ALLREDUCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "data", "traces", "ti-simgrid-actions",
                                            "actions_allreduce.txt"))
# DUMPI's test trace with mesh coordinates on Hopper's torus (scripts/dumpi_set_mesh.py).
MESH = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "data", "traces", "dumpi-testtrace-mesh"))


def replay(**changes):
    """A replay of the AMG trace on Hopper, with top-level keys replaced."""
    doc = {"machine": "hopper", "workload": {"name": "trace", "path": AMG}}
    doc.update(changes)
    return doc


def scenario(**changes):
    """PINGPONG with top-level keys replaced, or nested ones given as "a/b": value."""
    doc = copy.deepcopy(PINGPONG)
    for key, value in changes.items():
        at = doc
        parts = key.split("__")
        for part in parts[:-1]:
            at = at.setdefault(part, {})
        at[parts[-1]] = value
    return doc


TRACES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "traces")
DUMPI = os.path.join(TRACES, "dumpi-testtrace")


def text_files(**files):
    """Trace files written into the scratch directory before the command runs."""
    def make(directory):
        for name, text in files.items():
            with open(os.path.join(directory, name), "w") as f:
                f.write(text)
    return make


def dumpi_rank0():
    with open(os.path.join(DUMPI, "testtrace-0000.bin"), "rb") as f:
        return f.read()


# Rank 0's MPI_Isend (record 4): count 1, MPI_INT (9), to rank 1, tag 1337, on the world; its
# record starts 29 bytes before the count (label, mask, thread, CPU and wall clocks).
ISEND = b"\x00\x00\x00\x01\x00\x09\x00\x00\x00\x01\x00\x00\x05\x39\x00\x02"
ISEND_AT = dumpi_rank0().find(ISEND)
# Rank 0's MPI_Barrier (record 3) on MPI_COMM_WORLD (2), just before the Isend's label 8.
BARRIER_COMM_AT = dumpi_rank0().rfind(b"\x00\x02\x00\x08", 0, ISEND_AT)


def dumpi_files(change=None, drop=None):
    """sst-dumpi's 4-rank test trace in the scratch directory, rank 0's file changed by `change`
    (bytes -> bytes), the rank file `drop` left out."""
    def make(directory):  # the cases share one scratch directory: each writes every file again
        for name in os.listdir(DUMPI):
            if name.endswith((".bin", ".meta")):
                shutil.copy(os.path.join(DUMPI, name), directory)
        if drop:
            os.remove(os.path.join(directory, drop))
        if change:
            with open(os.path.join(directory, "testtrace-0000.bin"), "wb") as f:
                f.write(change(dumpi_rank0()))
    return make


def replaced(at, new):
    return lambda data: data[:at] + new + data[at + len(new):]


def trace_case(what, trace, file, path, expect, files, extra_args=()):
    """`torsim trace-info TRACE` on trace files the case writes."""
    return case(what, file=file, path=path, expect=expect, command="trace-info", scenario=None, out=False,
                args=[trace, *extra_args], files=files)


def case(what, file="s.json", path="/", expect="", **fields):
    """A case; the scenario is written to {dir}/s.json and torsim runs in {dir}."""
    return dict(what=what, file=file, path=path, expect=expect, **fields)


CASES = {
    # --- the file itself
    "malformed-json": case("malformed JSON", path="/workload/name", expect="malformed JSON at line 3, column",
                           scenario='{\n  "machine": "hopper",\n  "workload": {"name": }\n}'),
    "empty-file": case("an empty file", expect="malformed JSON at line 1, column 1", scenario=""),
    "number-overflow": case("a number beyond a double's range", path="/workload/iterations",
                            expect="malformed JSON: number overflow",
                            scenario='{"machine": "hopper", "workload": {"name": "pingpong", "iterations": 1e400}}'),
    "deep-nesting": case("JSON nested 100,000 levels deep", expect="nested more than 64 levels deep at line 1, column 65",
                         scenario="[" * 100000 + "]" * 100000),
    "nul-after-document": case("NUL bytes after the document", expect="a NUL byte at line 1, column 87",
                               scenario='{"machine": "hopper", "workload": {"name": "pingpong", "sizes": [8], "iterations": 2}}'
                                        "\0\0"),
    "nul-in-string": case("a NUL byte inside a string", path="/workload/name",
                          expect="a NUL byte at line 1, column 49: JSON text holds none",
                          scenario='{"machine": "hopper", "workload": {"name": "ping\0pong"}}'),
    "duplicate-key": case("a key given twice in one object", path="/workload/iterations",
                          expect="duplicate key 'iterations': the object gives it twice",
                          scenario='{"machine": "hopper", "workload": {"name": "pingpong", "iterations": 2, "iterations": 3}}'),
    "nan-literal": case("NaN or Infinity as a value", path="/workload/iterations",
                        expect="malformed JSON at line 1, column 70: invalid literal (JSON values are objects, lists, "
                        "strings, numbers, true, false and null; NaN and Infinity are not JSON), having read "
                        "'\"iterations\": N'",
                        scenario='{"machine": "hopper", "workload": {"name": "pingpong", "iterations": NaN}}'),
    "invalid-utf8": case("invalid UTF-8 inside a string", path="/description",
                         expect="malformed JSON at line 1, column 39: invalid string: ill-formed UTF-8 byte, having read "
                         "'\"\\xff'",
                         scenario=b'{"machine": "hopper", "description": "\xff"}'),
    "file-too-large": case("a scenario file beyond 16 MiB (/dev/zero)", file="/dev/zero",
                           expect="the file has more than 16 MiB", args=["/dev/zero"], scenario=None),
    "description-not-text": case("a description that is not a string", path="/description",
                                 expect="expected a string, got {\"a\":[[1]]}",
                                 scenario=dict(PINGPONG, description={"a": [[1]]})),
    "name-with-path-separator": case("a name with path separators (it was used as a path)", path="/name",
                                     expect="expected a name without path separators (it names the output "
                                     "directory results/NAME), got \"../../escape\"",
                                     scenario=dict(PINGPONG, name="../../escape")),
    "set-name-with-path-separator": case("a --set name with path separators", file="command line",
                                         path="--set name=a/b", expect="expected a name without path separators",
                                         args=["--set", "name=a/b"]),
    "seed-beyond-64-bits": case("a seed of 2^63 or more (it was said to be outside [0, inf])", path="/seed",
                                expect="'seed' is out of range: expected an integer of 64 bits, below 2^63 "
                                "(9223372036854775808) in magnitude, got 9223372036854775808",
                                scenario=dict(PINGPONG, seed=2 ** 63)),
    "not-an-object": case("a document that is not an object", expect="a scenario is a JSON object", scenario="[1, 2]"),
    "missing-workload": case("a scenario without a workload", expect="missing required key 'workload'",
                             scenario='{"machine": "hopper"}'),
    "missing-file": case("a scenario file that does not exist", file="{dir}/missing.json",
                         expect="cannot read the file", args=["{dir}/missing.json"], scenario=None),
    "directory-as-file": case("a directory given as the scenario", file="{dir}", expect="it is a directory",
                              args=["{dir}"], scenario=None),
    # --- unknown keys, at every level
    "unknown-top-level-key": case("unknown key at the top level", path="/machien",
                                  expect="unknown key 'machien' in scenario (top level); did you mean 'machine'?",
                                  scenario=dict(PINGPONG, machien="hopper")),
    "unknown-workload-key": case("unknown key in the workload", path="/workload/iteratons",
                                 expect="did you mean 'iterations'?", scenario=scenario(workload__iteratons=3)),
    "unknown-machine-key": case("unknown key in a machine preset override", path="/machine/node/corez",
                                expect="unknown key 'corez' in machine.node",
                                scenario=scenario(machine={"preset": "hopper", "node": {"corez": 3}})),
    "unknown-dims-key": case("unknown key in a list element (a torus dimension)", path="/machine/topology/dims/0/sise",
                             expect="unknown key 'sise'",
                             scenario=scenario(machine={"preset": "hopper", "topology": {"dims": {"0": {"sise": 4}}}})),
    "unknown-network-key": case("unknown key in the network model", path="/network/train_byts",
                                expect="did you mean 'train_bytes'?", scenario=scenario(network={"train_byts": "1KiB"})),
    "unknown-runtime-key": case("unknown key in the messaging layer", path="/runtime/eager_limt",
                                expect="did you mean 'eager_limit'?",
                                scenario=scenario(runtime={"layer": "mpi", "eager_limt": "1KiB"})),
    "unknown-placement-key": case("unknown key in the placement", path="/placement/node_lst",
                                  expect="did you mean 'node_list'?", scenario=scenario(placement={"node_lst": [0, 2]})),
    "unknown-output-key": case("unknown key in the output", path="/output/csvv", expect="did you mean 'csv'?",
                               scenario=scenario(output={"csvv": False})),
    "unknown-trace-key": case("unknown key in the trace options", path="/output/trace/rank",
                              expect="did you mean 'ranks'?", scenario=scenario(output={"trace": {"rank": [0]}})),
    "unknown-range-key": case("unknown key in a range", path="/workload/sizes/factr",
                              expect="unknown key 'factr' in a range",
                              scenario=scenario(workload__sizes={"from": 8, "to": 64, "factr": 2})),
    # --- wrong types
    "integer-as-string": case("a string where an integer goes", path="/workload/iterations",
                              expect="expected an integer, got \"many\"", scenario=scenario(workload__iterations="many")),
    "boolean-as-string": case("a string where a boolean goes", path="/output/csv", expect="expected true or false",
                              scenario=scenario(output={"csv": "yes"})),
    "object-as-number": case("a number where an object goes", path="/placement", expect="expected an object",
                             scenario=scenario(placement=3)),
    "list-element-type": case("a wrong type inside a list", path="/workload/sizes/1", expect="expected a size",
                              scenario=scenario(workload__sizes=[8, True])),
    "size-below-a-byte": case("a size below one byte (0.4B was taken as 0 B)", path="/workload/sizes/1",
                              expect="expected a whole number of bytes (torsim's smallest size), got \"0.4B\"",
                              scenario=scenario(workload__sizes=[8, "0.4B"])),
    "size-fraction-of-a-byte": case("a size with a fraction of a byte (1.5B was taken as 2 B)", path="/workload/sizes/0",
                                    expect="expected a whole number of bytes (torsim's smallest size), got \"1.5B\"",
                                    scenario=scenario(workload__sizes=["1.5B"])),
    "time-below-a-picosecond": case("a time below one picosecond (0.4ps was taken as 0)",
                                    path="/machine/node/nic_latency",
                                    expect="expected a whole number of picoseconds (torsim's smallest time), got \"0.4ps\"",
                                    scenario=scenario(machine={"preset": "hopper", "node": {"nic_latency": "0.4ps"}})),
    "machine-as-number": case("a number where the machine goes", path="/machine",
                              expect="expected a preset name or a machine object", scenario=scenario(machine=42)),
    # --- units
    "unit-does-not-parse": case("a unit that does not parse", path="/workload/sizes/0",
                                expect="expected a size such as \"4KiB\"", scenario=scenario(workload__sizes=["8 parsecs"])),
    "unit-of-another-quantity": case("a unit of another quantity (a size for a time)", path="/machine/node/nic_latency",
                                     expect="expected a time such as \"105ns\"",
                                     scenario=scenario(machine={"preset": "hopper", "node": {"nic_latency": "4KiB"}})),
    "unit-does-not-fit": case("a quantity too large for 64 bits", path="/machine/node/nic_latency",
                              expect="expected a time",
                              scenario=scenario(machine={"preset": "hopper", "node": {"nic_latency": "1e30s"}})),
    # --- values
    "negative-size": case("a negative size", path="/workload/sizes/0", expect="expected a size",
                          scenario=scenario(workload__sizes=["-8B"])),
    "zero-iterations": case("zero where at least one is needed", path="/workload/iterations",
                            expect="out of range: expected a value in [1,", scenario=scenario(workload__iterations=0)),
    "above-maximum": case("a value above its maximum", path="/workload/sizes/0",
                          expect="out of range: expected a value in [0B, 1GiB]", scenario=scenario(workload__sizes=["2GiB"])),
    "zero-rate": case("a zero rate", path="/machine/node/injection_bandwidth", expect="out of range",
                      scenario=scenario(machine={"preset": "hopper", "node": {"injection_bandwidth": "0GB/s"}})),
    "range-backwards": case("a range whose end is before its start", path="/workload/sizes",
                            expect="a range needs 'from' <= 'to'", scenario=scenario(workload__sizes={"from": 64, "to": 8, "factor": 2})),
    "range-too-long": case("a range of more than 100,000 values", path="/workload/sizes",
                           expect="the range expands to more than 100000 values",
                           scenario=scenario(workload__sizes={"from": 1, "to": 1000000000, "step": 1})),
    "choice-shortened": case("a choice shortened to some of its words (a traffic pattern \"uniform\")",
                             path="/workload/pattern",
                             expect="unknown pattern 'uniform' (did you mean 'uniform_random'?); valid values are: "
                             "shift, nearest_neighbor",
                             scenario=scenario(workload={"name": "traffic", "pattern": "uniform"})),
    "namd-box-not-a-number": case("a NAMD box length that is not a number (it ended in an internal error)",
                                  path="/workload/box/0",
                                  expect="expected a box length in angstroms, a positive number such as \"108.86\", "
                                  "got \"abc\"",
                                  scenario=scenario(runtime={"layer": "charm_ugni"},
                                                    workload={"name": "namd", "box": ["abc", "1", "2"]})),
    "namd-box-not-positive": case("a NAMD box length of zero or below (it was simulated)", path="/workload/box/2",
                                  expect="expected a box length in angstroms, a positive number such as \"108.86\", "
                                  "got \"-5\"",
                                  scenario=scenario(runtime={"layer": "charm_ugni"},
                                                    workload={"name": "namd", "box": ["108.86", "108.86", "-5"]})),
    "namd-box-too-large": case("a NAMD box implying more patches than supported (it ended in bad_alloc)",
                               path="/workload/box",
                               expect="this box implies 4.06e+11 patches (cells at least pairlist_distance wide); "
                               "at most 1,048,576 patches (2^20) are supported",
                               scenario=scenario(runtime={"layer": "charm_ugni"},
                                                 workload={"name": "namd", "box": ["100000", "100000", "100000"]})),
    "traffic-distance-unread": case("a shift distance given to another traffic pattern", path="/workload/distance",
                                    expect="distance is read only with pattern shift; this run's pattern is all_to_all",
                                    scenario=scenario(workload={"name": "traffic", "pattern": "all_to_all", "distance": 3})),
    "traffic-shift-to-itself": case(
        "a shift distance that is a multiple of the ranks (each rank sent to itself, and a throughput was reported)",
        path="/workload/distance", expect="sends every rank's messages to itself; expected a distance that is not "
        "a multiple of 2", scenario=scenario(workload={"name": "traffic", "pattern": "shift", "distance": 4})),
    "traffic-hot-fraction-unread": case("a hot-spot fraction given to another traffic pattern",
                                        path="/workload/hot_fraction",
                                        expect="hot_fraction is read only with pattern hot_spot",
                                        scenario=scenario(workload={"name": "traffic", "pattern": "shift",
                                                                    "hot_fraction": 0.2})),
    "fft-receive-window-unread": case("a receive window given to an FFT variant that posts no receives ahead",
                                      path="/workload/receive_window",
                                      expect="receive_window is read only with variant mpi_slabs; this run's is upc_slabs",
                                      scenario={"machine": "intrepid-64", "placement": {"nodes": 4, "mode": "VN"},
                                                "runtime": {"layer": "gasnet_dcmf"},
                                                "workload": {"name": "fft3d", "variant": "upc_slabs", "nx": 64,
                                                             "ny": 32, "nz": 32, "receive_window": 4}}),
    "fft-receive-window-unread-by-every-point": case(
        "a receive window in a sweep of which no point posts receives ahead", path="/workload/receive_window",
        expect="receive_window is read only with variant mpi_slabs; this run's is mpi_packed_slabs",
        scenario={"machine": "intrepid-64", "placement": {"nodes": 4, "mode": "VN"}, "runtime": {"layer": "mpi_dcmf"},
                  "workload": {"name": "fft3d", "variant": "mpi_packed_slabs", "nx": 64, "ny": 32, "nz": 32,
                               "receive_window": 4},
                  "sweep": {"workload.nz": [32, 64]}}),
    "mpi-cuda-other-design-key": case(
        "a CUDA-aware MPI parameter of the design the workload does not choose",
        path="/machine/runtimes/mpi_cuda/chunk",
        expect="chunk is not used by MVAPICH2-CUDA's baseline design (it calibrates the other one)",
        scenario={"machine": {"preset": "wilkes", "runtimes": {"mpi_cuda": {"chunk": "32KiB"}}},
                  "placement": {"node_list": [0], "ranks_per_node": 2},
                  "workload": {"name": "ddtbench", "test": "WRF_y_sa", "design": "baseline", "iterations": 1,
                               "warmup": 0}}),
    "fft-max-outstanding-unread": case("a send limit given to the packed FFT variant",
                                       path="/workload/max_outstanding",
                                       expect="max_outstanding is read only by the slabs variants",
                                       scenario={"machine": "intrepid-64", "placement": {"nodes": 4, "mode": "VN"},
                                                 "runtime": {"layer": "mpi_dcmf"},
                                                 "workload": {"name": "fft3d", "variant": "mpi_packed_slabs", "nx": 64,
                                                              "ny": 32, "nz": 32, "max_outstanding": 8}}),
    "router-key-without-credit": case(
        "a router parameter given to a run without credit flow control (the packet model without it, the analytic "
        "or SimGrid model: it ran, unread)", path="/machine/router/buffer_per_vc",
        expect="router.buffer_per_vc is read only by credit flow control (network.flow_control: credit); this run's "
        "network model (packet, network.flow_control: none) has no router buffers",
        scenario=scenario(machine={"preset": "hopper", "router": {"buffer_per_vc": "1KiB"}})),
    "router-key-swept-without-credit": case(
        "a sweep over a router parameter that no point reads (its points were identical, exit 0)",
        path="/sweep/machine.router.virtual_channels",
        expect="router.virtual_channels is read only by credit flow control (network.flow_control: credit); this "
        "run's network model (analytic) has no router buffers",
        scenario=scenario(network={"model": "analytic"}, sweep={"machine.router.virtual_channels": [2, 4]})),
    "calibration-of-another-layer": case(
        "a messaging layer's calibration given to a run over another layer (it ran, unread)",
        path="/machine/runtimes/ugni/control_bytes",
        expect="machine.runtimes.ugni.control_bytes is not read by this run (workload 'pingpong' over messaging "
        "layer 'mpi'): it would change nothing",
        scenario=scenario(runtime={"layer": "mpi"}, machine={"preset": "hopper",
                                                             "runtimes": {"ugni": {"control_bytes": "64B"}}})),
    "nic-key-unread": case(
        "a NIC parameter given to a run whose layer does not drive the NIC (the raw layer)",
        file="command line (--set)", path="/machine/nic/bte_setup",
        expect="machine.nic.bte_setup is not read by this run (workload 'pingpong' over messaging layer 'raw'): "
        "it would change nothing",
        scenario=scenario(runtime={"layer": "raw"}), args=["--set", "machine.nic.bte_setup=5us"]),
    "compute-cost-unread": case(
        "a compute cost given to a workload that does not compute with it (an FFT's flop cost to a ping-pong)",
        file="command line (--set)", path="/machine/compute/fft_flop",
        expect="machine.compute.fft_flop is not read by this run (workload 'pingpong' over messaging layer 'raw'): "
        "it would change nothing",
        scenario=scenario(), args=["--set", "machine.compute.fft_flop=1ns"]),
    "peer-with-all-pairs": case("a ping-pong peer given with pairs all (each rank's peer is then fixed)",
                                path="/workload/peer", expect="peer is read only with pairs one",
                                scenario=scenario(workload={"name": "pingpong", "pairs": "all", "peer": 3})),
    "degree-without-knomial": case("a k-nomial degree given with the binomial reduce", path="/runtime/collectives/degree",
                                   expect="degree is read only with reduce knomial",
                                   scenario=scenario(runtime={"layer": "mpi", "collectives": {"degree": 4}})),
    # --- machines and placements
    "unknown-preset": case("an unknown machine preset", path="/machine",
                           expect="unknown machine preset 'hoper' (did you mean 'hopper'?); valid values are: ", scenario=scenario(machine="hoper")),
    "unknown-node-mode": case("a node mode the machine does not name", path="/placement/mode",
                              expect="machine 'intrepid-64': unknown node mode 'DUEL' (did you mean 'DUAL'?); valid values are: ",
                              scenario=scenario(machine="intrepid-64", placement={"node_list": [0, 2], "mode": "DUEL"})),
    "node-out-of-range": case("a node the machine does not have", path="/placement/node_list/1",
                              expect="node 999999 does not exist; the machine has 6528 nodes",
                              scenario=scenario(placement={"node_list": [0, 999999]})),
    "duplicate-nodes": case("a node listed twice", path="/placement/node_list/1", expect="node listed twice",
                            scenario=scenario(placement={"node_list": [0, 0]})),
    "too-many-nodes": case("more nodes than the machine has", path="/placement/nodes", expect="the machine has 6528",
                           scenario=scenario(placement={"nodes": 100000})),
    "too-many-ranks-per-node": case("more ranks on a node than it has cores", path="/placement/ranks_per_node",
                                    expect="at most 24 ranks per node",
                                    scenario=scenario(placement={"nodes": 2, "ranks_per_node": 25})),
    "dims-patch-negative-index": case("a patch of a list (torus dimensions) with a negative index (it was called "
                                      "\"expected a list\")", path="/machine/topology/dims/-1",
                                      expect="'-1' is not an index of the list, which has 3 elements: expected 0 to 2",
                                      scenario=scenario(machine={"preset": "hopper",
                                                                 "topology": {"dims": {"-1": {"size": 4}}}})),
    "preset-loop": case("machine presets that derive from each other in a loop (a long chain is not one)",
                        file="{dir}/data/scenarios/machines/b.json", path="/preset",
                        expect="presets derive from each other in a loop: a -> b -> a", special="test_preset_chains"),
    "impossible-machine-empty": case("an impossible machine: a torus dimension of size 0",
                                     path="/machine/topology/dims/0/size", expect="out of range",
                                     scenario=scenario(machine={"preset": "hopper", "topology": {"dims": {"0": {"size": 0}}}})),
    "impossible-machine-huge": case("an impossible machine: more routers than supported", path="/machine/topology/dims",
                                    expect="at most 4,194,304 routers",
                                    scenario=scenario(machine={"preset": "hopper", "topology": {"dims": {
                                        "0": {"size": 4096}, "1": {"size": 4096}, "2": {"size": 4096}}}})),
    "machine-beyond-memory": case("a machine that does not fit in memory (a torus near the router limit died of "
                                  "bad_alloc), under ulimit -v 2 GiB", path="/machine/topology/dims",
                                  expect="a torus of 2097152 routers needs about 6.29 GiB of memory to run (estimated: "
                                  "400 B per network link, 800 B per node; 12582912 links, 2097152 nodes); the "
                                  "address-space limit (ulimit -v) is 2.00 GiB: expected a machine that fits",
                                  special="test_machine_beyond_memory"),
    "fat-tree-beyond-memory": case("a fat tree that does not fit in memory, under ulimit -v 512 MiB",
                                   path="/machine/topology",
                                   expect="a fat tree of 524288 nodes needs about 0.82 GiB of memory to run "
                                   "(estimated: 400 B per network link, 800 B per node; 1048576 links, 524288 nodes)",
                                   special="test_machine_beyond_memory"),
    "workload-needs-more-ranks": case("a workload that needs more ranks than the job has", path="/workload",
                                      expect="the workload needs at least 6 ranks; the job has 2",
                                      scenario=scenario(workload__peer=5)),
    "unknown-workload": case("an unknown workload", path="/workload/name", expect="unknown workload 'pingpang' (did you mean 'pingpong'?); valid values are: pingpong",
                             scenario=scenario(workload={"name": "pingpang"})),
    "unknown-model": case("an unknown network model", path="/network/model", expect="unknown network model 'packets' (did you mean 'packet'?)",
                          scenario=scenario(network={"model": "packets"})),
    "unknown-router-choice": case("an unknown value of a router choice", path="/machine/router/deadlock_avoidance",
                                  expect="unknown deadlock_avoidance 'bubbles' (did you mean 'bubble'?); valid values "
                                  "are: dateline, bubble, none",
                                  scenario=scenario(machine={"preset": "hopper",
                                                             "router": {"deadlock_avoidance": "bubbles"}})),
    "credit-without-buffers": case("credit flow control on a machine without router buffers (0 B: unbounded, "
                                   "nothing to control)", path="/machine/router/buffer_per_vc",
                                   expect="credit flow control (network.flow_control: credit) needs the router's "
                                   "input buffers, and this machine has none",
                                   scenario=scenario(machine={"preset": "hopper", "router": {"buffer_per_vc": "0B"}},
                                                     network={"model": "packet", "flow_control": "credit"})),
    "unknown-layer": case("an unknown messaging layer", path="/runtime/layer", expect="unknown messaging layer 'mpich'",
                          scenario=scenario(runtime={"layer": "mpich"})),
    # --- machine sections only some runs read (the NIC, GPUs, layers' calibrations, compute costs):
    # checked whatever the run uses (these runs use the raw layer, which reads none of them)
    "unread-nic-key": case("unknown key in the machine's NIC, which the run's layer does not drive",
                           path="/machine/nic/smsg_credit", expect="did you mean 'smsg_credits'?",
                           scenario=scenario(machine={"preset": "hopper", "nic": {"smsg_credit": 8}})),
    "unknown-nic-model": case("an unknown NIC model", path="/machine/nic/model",
                              expect="unknown NIC model 'gemeni' (did you mean 'gemini'?)",
                              scenario=scenario(machine={"preset": "hopper", "nic": {"model": "gemeni"}})),
    "bad-nic-value": case("a bad value in the machine's NIC, which the run's layer does not drive",
                          path="/machine/nic/smsg_credits", expect="out of range",
                          scenario=scenario(machine={"preset": "hopper", "nic": {"smsg_credits": 0}})),
    "unread-calibration-key": case("unknown key in a layer's calibration the run does not use (machine.runtimes)",
                                   path="/machine/runtimes/mpi/eager_limt", expect="did you mean 'eager_limit'?",
                                   scenario=scenario(machine={"preset": "hopper",
                                                              "runtimes": {"mpi": {"eager_limt": "1KiB"}}})),
    "bad-calibration-value": case("a bad value in a layer's calibration the run does not use",
                                  path="/machine/runtimes/ugni/fma_bte_threshold", expect="expected a size",
                                  scenario=scenario(machine={"preset": "hopper",
                                                             "runtimes": {"ugni": {"fma_bte_threshold": "lots"}}})),
    "unknown-calibration": case("a calibration for a messaging layer that does not exist",
                                path="/machine/runtimes/mpii", expect="unknown messaging layer 'mpii' (did you mean 'mpi'?)",
                                scenario=scenario(machine={"preset": "hopper", "runtimes": {"mpii": {}}})),
    "calibration-for-other-nic": case("a calibration for a layer the machine's NIC cannot run",
                                      path="/machine/runtimes/mpi", expect="runs on machines whose NIC is gemini, infiniband",
                                      scenario=scenario(machine={"preset": "intrepid-64", "runtimes": {"mpi": {}}})),
    "unread-gpu-key": case("unknown key in the machine's GPUs, which the workload does not use",
                           path="/machine/gpu/per_nod", expect="did you mean 'per_node'?",
                           scenario=scenario(machine={"preset": "hopper", "gpu": {"per_nod": 1}})),
    "unknown-compute-cost": case("a compute cost no workload reads", path="/machine/compute/flops",
                                 expect="unknown key 'flops' in machine.compute; did you mean 'flop'?",
                                 scenario=scenario(machine={"preset": "hopper", "compute": {"flops": "1ns"}})),
    # --- sweeps
    "sweep-to-nothing": case("a sweep that expands to nothing", path="/sweep/workload.peer",
                             expect="expected a non-empty list of values", scenario=scenario(sweep={"workload.peer": []})),
    "set-sweep-unquoted-strings": case(
        "a sweep's list on the command line with unquoted strings (it was taken as one string, and not said so)",
        file="command line (--set)", path="/sweep/network.model",
        expect='expected a non-empty list of values (JSON: strings in double quotes, ["packet", "analytic"]), '
        'got "[analytic,packet]"', args=["--set", "sweep.network.model=[analytic,packet]"]),
    "sweep-to-millions": case("a sweep that expands to millions of points", path="/sweep",
                              expect="the sweep expands to more than 100000 points",
                              scenario=scenario(sweep={"workload.iterations": list(range(1, 201)),
                                                       "workload.warmup": list(range(200)),
                                                       "seed": list(range(200))})),
    "sweep-bad-machine-value": case(
        "a bad value in a sweep over a machine parameter (it was blamed on the machine preset's file)",
        path="/sweep/machine.node.memcpy_bandwidth", expect='expected a rate such as "425MB/s"',
        scenario=scenario(sweep={"machine.node.memcpy_bandwidth": ["1GB/s", "fast"]})),
    "sweep-run-wide-key": case("a sweep over a key that belongs to the whole run (output.dir, name, sweep)",
                               path="/sweep/output.dir", expect="'output.dir' cannot vary per sweep point",
                               scenario=scenario(sweep={"output.dir": ["a", "b"]})),
    "sweep-unknown-key": case("a sweep over a key the scenario does not have", path="/sweep/worklaod.iterations",
                              expect="unknown key 'worklaod' in a sweep path; did you mean 'workload'?",
                              scenario=scenario(sweep={"worklaod.iterations": [1, 2]})),
    "sweep-empty-path": case("a sweep key that is an empty path (it was blamed on --set)", path="/sweep/",
                             expect="expected a dotted path such as \"workload.sizes\" as a sweep key, got \"\"",
                             scenario=dict(PINGPONG, sweep={"": [1, 2]})),
    "sweep-nested-object": case("a sweep key given as nested objects (it was \"expected a non-empty list\")",
                                path="/sweep/placement",
                                expect="expected a list of values, got an object: a sweep lists its values (it has "
                                "no ranges), and its keys are dotted paths (\"placement.nodes\": [...] for a nested key)",
                                scenario=dict(PINGPONG, sweep={"placement": {"nodes": [16, 64]}})),
    "sweep-bad-point": case("a sweep value that is bad in one point only", path="/sweep/workload.iterations",
                            expect="out of range", scenario=scenario(sweep={"workload.iterations": [2, 0]})),
    # --- the command line
    "set-malformed": case("--set without a value", file="command line", path="--set workload",
                          expect="expected --set path=value", args=["--set", "workload"]),
    "set-bad-value": case("--set with a bad value (blamed on the command line)", file="command line (--set)",
                          path="/machine/topology/dims/1/size", expect="out of range",
                          args=["--set", "machine.topology.dims.1.size=0"]),
    "set-bad-seed": case("--set seed= with a bad value (it was blamed on the scenario file)",
                         file="command line (--set)", path="/seed", expect="'seed' is out of range",
                         args=["--set", "seed=-1"]),
    "set-bad-trace-points": case("--set of an output value that is bad (it was blamed on the scenario file)",
                                 file="command line (--set)", path="/output/trace/points",
                                 expect="expected sweep point indices below 1, got 7",
                                 args=["--set", "output.trace.points=[7]"]),
    "set-unknown-preset": case("--set machine= with an unknown preset", file="command line",
                               path="--set machine=hoper", expect="unknown machine preset 'hoper' (did you mean 'hopper'?); valid values are: ",
                               args=["--set", "machine=hoper"]),
    "option-not-taken-describe": case("an option the command does not take (describe --set)", file="command line",
                                      path="--set", expect="describe does not take --set; its options are: --json",
                                      command="describe", args=["hopper", "--set", "machine.node.cores=2"],
                                      scenario=None, out=False),
    "option-not-taken-run": case("an option the command does not take (run --route, run --json)", file="command line",
                                 path="--route", expect="run does not take --route", args=["--route", "0", "1"]),
    "option-not-taken-reference": case("an option the command does not take (reference --set)", file="command line",
                                       path="--set", expect="reference does not take --set", command="reference",
                                       args=["--set", "seed=2"], scenario=None, out=False),
    "validate-unknown-claim": case("a claim the registry does not have (validate --only K9; it said so without the "
                                   "valid ones)", file="command line", path="--only K9",
                                   expect="unknown claim 'K9' (did you mean 'C9'?); valid values are: C1, C2",
                                   command="validate", args=["--quick", "--only", "K9"], scenario=None, out=False),
    "option-twice": case("an option given twice that is taken once (--out a --out b)", file="command line",
                         path="--out", expect="given twice; run takes --out once", args=["--out", "{dir}/a", "--out", "{dir}/b"]),
    "option-without-value": case("an option without its value", file="command line", path="--jobs",
                                 expect="expected N after --jobs", args=["--jobs"]),
    "operand-too-many": case("an operand the command does not take (two scenario files)", file="command line",
                             path="run", expect="expected FILE, got 2 operands (s.json is one too many)",
                             args=["s.json"]),
    "shard-malformed": case("--shard that is not K/N with K < N", file="command line", path="--shard 3/2",
                            expect="expected K/N with 0 <= K < N", args=["--shard", "3/2"]),
    "jobs-zero": case("--jobs 0", file="command line", path="--jobs 0",
                      expect="expected a number of sweep points to run at once", args=["--jobs", "0"]),
    "trace-rank-beyond-job": case("a traced rank the job does not have", path="/output/trace/ranks",
                                  expect="expected ranks of the job below 2, got 7",
                                  scenario=scenario(output={"trace": {"ranks": [7]}})),
    "trace-window-backwards": case("a trace window that ends before it starts", path="/output/trace/to",
                                   expect="expected a time after 'from'",
                                   scenario=scenario(output={"trace": {"from": "2us", "to": "1us"}})),
    # --- where the results go
    "trace-file-is-a-directory": case("a --trace file that is a directory (found before the run)", file="command line",
                                      path="--trace {dir}", expect="cannot write the trace to {dir}: it is a directory",
                                      args=["--trace", "{dir}"]),
    "trace-file-is-a-run-file": case("a --trace file that is one of the run's own files", file="command line",
                                     path="--trace {out}/results.json",
                                     expect="expected a trace file name that is not one of the run's own files",
                                     args=["--trace", "{out}/results.json"]),
    "out-under-a-file": case("an output directory that cannot be created (a file is in the way)",
                             file="command line", path="--out {dir}/file/out", expect="{dir}/file is not a directory",
                             args=["--out", "{dir}/file/out"]),
    "output-dir-under-a-file": case("an output.dir in the scenario that cannot be created", path="/output/dir",
                                    expect="{dir}/file is not a directory", scenario=scenario(output={"dir": "{dir}/file/out"}),
                                    out=False),
    "out-is-a-file": case("an output directory that is a file", file="command line", path="--out {dir}/file",
                          expect="it is a file", args=["--out", "{dir}/file"]),
    "out-not-writable": case("an output directory without write permission (when not run as root)",
                             file="command line", path="--out {dir}/locked/out", expect="Permission denied",
                             special="test_output_directory_without_permission"),
    "trace-file-unwritable": case("a --trace file in a directory that does not exist", file="command line",
                                  path="--trace {dir}/none/trace.json", expect="cannot create {dir}/none/trace.json",
                                  args=["--trace", "{dir}/none/trace.json"]),
    "disk-full-write-fails": case("a write that fails (file size limit: the disk is full for this file)",
                                  file="command line", path="--out {out}", expect="File too large",
                                  special="test_write_that_fails"),
    "disk-full-tmpfs": case("a full disk (a 64 KiB tmpfs)", file="command line", path="--out {out}",
                            expect="No space left on device", special="test_full_disk"),
    "write-fails-any-command": case("a write that fails in any command that writes a file (reference --out, "
                                    "schema --out, validate --report, run --trace)", file="command line",
                                    path="--out {dir}/written/reference.md", expect="File too large",
                                    special="test_every_command_write_that_fails"),
    "disk-full-any-command": case("a full disk under any command that writes a file (a full tmpfs)", file="command line",
                                  path="--out {dir}/disk/reference.md", expect="No space left on device",
                                  special="test_every_command_on_a_full_disk"),
    "stdout-full": case("standard output on a full disk (torsim reference > /dev/full)", file="standard output",
                        path="/", expect="cannot write: No space left on device", special="test_standard_output_full"),
    "killed-mid-way": case("a run killed mid-way (SIGTERM, SIGINT, SIGKILL)", file="-", path="-",
                           expect="no results; SIGTERM and SIGINT also remove the trace's temporary files",
                           special="test_run_killed_mid_way"),
    # --- trace replay (the workload's keys; the trace files' own errors are their readers')
    "replay-unread-compute-scale": case("a replay's compute_scale without compute: compute_scale",
                                        path="/workload/compute_scale", expect="compute_scale is read only with",
                                        scenario=replay(workload={"name": "trace", "path": AMG, "compute_scale": 0.5})),
    "replay-unread-flop-rate": case("a flop rate for a trace with recorded times", path="/workload/flop_rate",
                                    expect="flop_rate is read only for time-independent traces",
                                    scenario=replay(workload={"name": "trace", "path": AMG, "flop_rate": 1e9})),
    "replay-flop-rate-without-compute": case(
        "a flop rate for a replay that computes nothing (compute: none; it was accepted)", path="/workload/flop_rate",
        expect="flop_rate is read only when the replay computes",
        scenario=replay(workload={"name": "trace", "path": TI_ALLREDUCE, "compute": "none", "flop_rate": 1e9})),
    "replay-flop-rate-unread-by-every-point": case(
        "a flop rate in a sweep none of whose traces is time-independent", path="/workload/flop_rate",
        expect="flop_rate is read only for time-independent traces (their compute actions); this trace is dumpi",
        scenario=replay(workload={"name": "trace", "path": AMG, "flop_rate": 1e9},
                        sweep={"workload.clocks": ["aligned", "recorded"]})),
    "replay-unknown-format": case("an unknown trace format", path="/workload/format",
                                  expect="unknown format 'otf' (did you mean 'otf2'?); valid values are: auto, ti, dumpi, otf2",
                                  scenario=replay(workload={"name": "trace", "path": AMG, "format": "otf"})),
    "replay-trace-beyond-machine": case("a trace with more ranks than the machine has cores", path="/workload/path",
                                        expect="the trace has 27 ranks; machine 'clan-16' has 16 cores",
                                        scenario=replay(machine={"preset": "clan-16", "node": {"cores": 1}})),
    "replay-placement-too-small": case("a placement with fewer ranks than the trace", path="/placement",
                                       expect="the placement gives 4 ranks; the trace has 27",
                                       scenario=replay(placement={"nodes": 2, "ranks_per_node": 2})),
    "replay-from-trace-and-more": case("a placement from the trace with other placement keys",
                                       path="/placement/nodes", expect="\"from_trace\" places every rank",
                                       scenario=replay(placement={"from_trace": True, "nodes": 2})),
    "replay-from-trace-not-a-replay": case("a placement from the trace for a workload that is not a replay",
                                           path="/placement/from_trace",
                                           expect="\"from_trace\" places a trace replay's ranks",
                                           scenario=scenario(placement={"from_trace": True})),
    "replay-from-trace-not-boolean": case("a placement from_trace that is not true or false",
                                          path="/placement/from_trace", expect="expected true or false",
                                          scenario=replay(placement={"from_trace": "yes"})),
    "replay-from-trace-coordinates-outside": case(
        "a trace's mesh coordinates beyond the machine's torus or mesh (placement from the trace)",
        path="/placement/from_trace", expect="rank 2 ran at mesh coordinates (4,5,6)",
        scenario=replay(machine="intrepid-64", workload={"name": "trace", "path": MESH},
                        placement={"from_trace": True})),
    # --- recorded MPI traces (torsim trace-info; the trace workload reads them the same way)
    "trace-ti-unknown-action": trace_case(
        "a time-independent trace with an unknown action", "{dir}/t.txt", "{dir}/t.txt", "line 2",
        "unknown action 'bcastt'; valid actions are: init", text_files(**{"t.txt": "0 init\n0 bcastt 100\n"})),
    "trace-ti-rank-out-of-range": trace_case(
        "a time-independent trace naming a rank it does not have", "{dir}/t.txt", "{dir}/t.txt", "line 2",
        "destination 3 is out of range: the trace's ranks are 0 to 1",
        text_files(**{"t.txt": "0 init\n0 send 3 0 100\n1 init\n"})),
    "trace-ti-unknown-datatype": trace_case(
        "a time-independent trace with an unknown datatype", "{dir}/t.txt", "{dir}/t.txt", "line 1",
        "unknown datatype '77' (argument 3 of 'bcast')", text_files(**{"t.txt": "0 bcast 100 0 77\n"})),
    "trace-ti-missing-rank-file": trace_case(
        "a time-independent index listing a rank file that does not exist", "{dir}/index", "{dir}/index", "line 2",
        "the rank file {dir}/b.txt listed for rank 1 does not exist",
        text_files(index="a.txt\nb.txt\n", **{"a.txt": "0 init\n"})),
    "trace-dumpi-wrong-magic": trace_case(
        "a DUMPI file without DUMPI's magic", "{dir}/testtrace.meta", "{dir}/testtrace-0000.bin", "byte 0",
        "not a DUMPI trace file", dumpi_files(change=replaced(3, b"X"))),
    "trace-dumpi-truncated-file": trace_case(
        "a truncated DUMPI file (its index lost)", "{dir}/testtrace.meta", "{dir}/testtrace-0000.bin", "byte 2876",
        "the file is truncated: its last 64 bytes are not DUMPI's index", dumpi_files(change=lambda d: d[:-20])),
    "trace-dumpi-truncated-record": trace_case(
        "a DUMPI stream cut in the middle of a record (its end label overwritten)", "{dir}/testtrace.meta",
        "{dir}/testtrace-0000.bin", "record 9 (byte 375)",
        "the record is truncated: it needs 1 more bytes at byte 377, but its section ends at byte 377",
        dumpi_files(change=replaced(375, b"\x00\x00"))),
    "trace-dumpi-missing-rank-file": trace_case(
        "a DUMPI run with a rank file missing", "{dir}/testtrace.meta", "{dir}/testtrace.meta", "numprocs",
        "the trace file of rank 3, {dir}/testtrace-0003.bin, does not exist (the run had 4 ranks)",
        dumpi_files(drop="testtrace-0003.bin")),
    "trace-dumpi-rank-out-of-range": trace_case(
        "a DUMPI send to a rank beyond the run", "{dir}/testtrace.meta", "{dir}/testtrace-0000.bin",
        f"record 4 (byte {ISEND_AT - 29})", "MPI_Isend: rank 7 is out of range: the run had 4 ranks",
        dumpi_files(change=replaced(ISEND_AT + 9, b"\x07"))),
    "trace-dumpi-unknown-communicator": trace_case(
        "a DUMPI call on a communicator no call created", "{dir}/testtrace.meta", "{dir}/testtrace-0000.bin",
        f"record 3 (byte {BARRIER_COMM_AT - 29})",
        "MPI_Barrier: communicator 12 is out of range: no earlier call of this rank created it",
        dumpi_files(change=replaced(BARRIER_COMM_AT + 1, b"\x0c"))),
    "trace-dumpi-unknown-datatype": trace_case(
        "a DUMPI call with an unknown datatype", "{dir}/testtrace.meta", "{dir}/testtrace-0000.bin",
        f"record 4 (byte {ISEND_AT - 29})",
        "MPI_Isend: unknown datatype 200: the trace's datatype table has 28 entries",
        dumpi_files(change=replaced(ISEND_AT + 5, b"\xc8"))),
    "trace-otf2-missing": trace_case(
        "an OTF2 anchor file that does not exist", "{dir}/traces.otf2", "{dir}/traces.otf2", "/",
        "cannot read the OTF2 anchor file: it does not exist", text_files()),
    "trace-unknown-format": trace_case(
        "an unknown trace format", "{dir}/t.txt", "command line", "--format dumpy",
        "unknown trace format 'dumpy' (did you mean 'dumpi'?); valid values are: auto, ti, dumpi, otf2",
        text_files(**{"t.txt": "0 init\n"}), extra_args=["--format", "dumpy"]),
    # --- merging shards
    "merge-missing-shard": case("torsim merge without every shard", file="command line", path="merge",
                                expect="missing shard(s) 1", command="merge", special="test_merge_errors"),
    "merge-shard-twice": case("torsim merge with a shard given twice", file="{dir}/s0b/results.json",
                              path="/shard/index", expect="shard 0 is given twice", command="merge",
                              special="test_merge_errors"),
    "merge-not-a-shard": case("torsim merge of a run that is not a shard", file="{dir}/whole/results.json",
                              path="/shard", expect="expected the results of one shard", command="merge",
                              special="test_merge_errors"),
    "merge-other-scenario": case("torsim merge of shards of different runs", file="{dir}/t1/results.json",
                                 path="/scenario/file", expect="expected the same scenario", command="merge",
                                 special="test_merge_errors"),
    "merge-file-by-another-path": case("torsim merge of shards run by a relative and an absolute path to one file",
                                       file="{dir}/rel/results.json", path="/scenario/file",
                                       expect="this shard has \"s.json\", that one \"{dir}/s.json\" (give every "
                                       "shard the scenario file by the same path)", command="merge",
                                       special="test_merge_errors"),
}


def markdown():
    lines = ["# Bad input", "",
             f"Each of the {len(CASES)} classes of bad input below stops torsim with exit code 2 and one message",
             "`error: FILE: at PATH: what was expected`, before anything is written: no output directory,",
             "no partial file. Values given on the command line are blamed on it (`command line`), values",
             "from a machine preset on the preset's file. Each row is a test",
             "(`tests/cli/test_bad_input.py`, from the catalogue in `tests/cli/bad_input_catalogue.py`,",
             "which generates this table: `python3 tests/cli/bad_input_catalogue.py > docs/bad-input.md`).",
             "`{dir}` stands for a scratch directory and `{out}` for the output directory. In a recorded",
             "MPI trace the path is the record (with its byte offset, or the line of a text trace).", "",
             "| # | class | file | JSON path | the message says |", "|---|---|---|---|---|"]
    for number, (name, c) in enumerate(CASES.items(), 1):
        cells = [str(number), f"{c['what']} (`{name}`)", f"`{c['file']}`", f"`{c['path']}`", c["expect"]]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    lines += ["", "A run killed with SIGKILL leaves no output directory; its hidden staging directory beside it",
              "(`.NAME.partial-PID`) and the trace's temporary files under `$TMPDIR` (`torsim-PID-point-N.trace`)",
              "stay behind, as nothing can run at SIGKILL; the next run into the same place removes the staging",
              "directory.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown())
