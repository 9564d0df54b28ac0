"""Loading what torsim writes: results.json, the series CSVs, links.csv and validation.json."""
import json
import os

import pandas as pd


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, out)
    else:
        out[prefix] = value
    return out


def _cell(value):
    """A sweep value as a table cell: a list or object as its compact JSON text (torsim's CSVs)."""
    return json.dumps(value, separators=(",", ":")) if isinstance(value, (list, dict)) else value


class Results:
    """A run's outputs. `doc` is results.json as a dict; the properties are DataFrames.
    `directory` is None when the outputs were read into memory and their directory removed
    (torsim.run() without `out`)."""

    def __init__(self, directory):
        self.directory = os.fspath(directory)
        self._tables = {}  # CSV name -> DataFrame, once read into memory
        with open(os.path.join(self.directory, "results.json")) as f:
            self.doc = json.load(f)

    def _read_into_memory(self):
        """Reads every CSV of the directory, which can then be removed."""
        for name in os.listdir(self.directory):
            if name.endswith(".csv"):
                self._tables[name[:-4]] = self._read_csv(name[:-4])
        self.directory = None

    def _read_csv(self, name):
        """The CSV `name` as a DataFrame, or None when the run wrote none."""
        if self.directory is None:
            return self._tables[name].copy() if name in self._tables else None
        path = os.path.join(self.directory, f"{name}.csv")
        return pd.read_csv(path, float_precision="round_trip") if os.path.exists(path) else None

    @property
    def points(self):
        return self.doc["points"]

    def _sweep(self):
        return pd.DataFrame([p["sweep"] for p in self.points], index=pd.RangeIndex(len(self.points), name="point"))

    @property
    def metrics(self):
        """One row per sweep point: the sweep values, then every metric."""
        metrics = pd.DataFrame([p["metrics"] for p in self.points], index=self._sweep().index)
        return pd.concat([self._sweep(), metrics], axis=1)

    @property
    def counters(self):
        """One row per sweep point: the sweep values, then every counter (nested names dotted)."""
        counters = pd.DataFrame([_flatten("", p["counters"], {}) for p in self.points], index=self._sweep().index)
        return pd.concat([self._sweep(), counters, pd.Series([p["simulated_time_us"] for p in self.points],
                                                             index=counters.index, name="simulated_time_us")], axis=1)

    def series_names(self):
        return sorted({name for p in self.points for name in p["series"]})

    def series(self, name):
        """The series `name` of every point: its CSV when the run wrote one, else results.json.
        The sweep values come first; a list or object value is its compact JSON text, as in the CSV."""
        table = self._read_csv(name)
        return table if table is not None else self._series_from_json(name)

    def _series_from_json(self, name):
        frames = []
        for p in self.points:
            if name in p["series"]:
                s = p["series"][name]
                frame = pd.DataFrame(s["rows"], columns=s["columns"])
                for key, value in reversed(list(p["sweep"].items())):
                    frame.insert(0, key, [_cell(value)] * len(frame))
                frames.append(frame)
        if not frames:
            raise KeyError(f"no series '{name}' in {self.directory or 'the results'} (series: {', '.join(self.series_names())})")
        return pd.concat(frames, ignore_index=True)

    @property
    def links(self):
        """links.csv (output.link_stats): every link's busy time in each point."""
        table = self._read_csv("links")
        if table is None:
            raise KeyError("no links.csv: the run did not write link statistics (output.link_stats)")
        return table


def load(directory):
    """The Results of a run's output directory (or of its results.json)."""
    directory = os.fspath(directory)
    if os.path.basename(directory) == "results.json":
        directory = os.path.dirname(directory) or "."
    return Results(directory)


class Validation:
    """validation.json, as `torsim validate` writes it: `claims` is its list of claims (dicts)."""

    def __init__(self, path):
        with open(path) as f:
            self.doc = json.load(f)
        self.claims = self.doc["claims"]

    def claim(self, claim_id):
        for claim in self.claims:
            if claim["id"] == claim_id:
                return claim
        raise KeyError(f"no claim {claim_id}")

    def curves(self, claim_id):
        """The simulated curves of a claim, long form: columns curve, x, y."""
        rows = [(name, x, y) for name, curve in sorted(self.claim(claim_id)["curves"].items())
                for x, y in zip(curve["x"], curve["y"])]
        return pd.DataFrame(rows, columns=["curve", "x", "y"])

    @property
    def summary(self):
        """One row per claim: id, status and quantity."""
        return pd.DataFrame([{"id": c["id"], "status": c["status"], "quantity": c.get("quantity", "")}
                             for c in self.claims])


def read_validation(path):
    """A validation.json (torsim validate --report DIR writes DIR/validation.json)."""
    return Validation(path)
