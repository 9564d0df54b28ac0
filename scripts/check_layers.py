#!/usr/bin/env python3
"""Checks the layer stack of docs/architecture.md: includes point down, and every function is
defined in the layer that declares it.

Each source file belongs to the first layer whose prefix matches its path. A file may include
headers of its own layer or of layers below it, never above, nor a sibling's (two layers of
one rank). A function or class member declared in a header is defined (its body written) in a
.cpp of the header's own layer: a definition in a layer above its declaration would let the
lower layer depend on code above it through the linker. Exit 1 with one line per violation, 0
when the stack holds. Run by CTest (test `layers`) and usable by hand:

    python3 scripts/check_layers.py [ROOT]
"""
import pathlib
import re
import sys

# Bottom to top; layers in one inner list share a rank (siblings: neither may include the
# other). The node (a job's ranks, placement and cores) sits under the NICs, which charge core
# time through it; the messaging interface sits above the NICs, the layers implementing it
# above the collective algorithms they install, and workloads on top.
LAYERS = [
    [("core", ["sim/core/"])],
    [("config", ["sim/config/"])],
    [("topologies", ["topologies/"])],
    [("machine", ["models/machine."])],
    [("network", ["models/network/"])],
    [("node", ["models/node/"])],
    [("nic", ["models/nic/"]), ("gpu", ["models/gpu/"])],
    [("messaging", ["models/messaging/"])],
    [("collectives", ["models/collectives/"])],
    [("runtime", ["models/runtime/"])],
    [("apps", ["models/apps/"])],
    [("run", ["run/"])],
    [("validation", ["validation/"])],
    [("cli", ["cli/"])],
    [("tests", ["tests/", "fuzz/"])],
]
SOURCE_DIRS = ["sim", "topologies", "models", "run", "validation", "cli", "tests", "fuzz"]
SUFFIXES = (".hpp", ".cpp", ".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(path):
    """(rank, name) of the layer holding `path`, or None."""
    for rank, group in enumerate(LAYERS):
        for name, prefixes in group:
            if any(path.startswith(p) for p in prefixes):
                return rank, name
    return None


def source_paths(root):
    """Every C++ source of the project (also what scripts/check_format.py checks)."""
    for top in SOURCE_DIRS:
        for file in sorted((root / top).rglob("*")):
            if file.suffix in SUFFIXES:
                yield file


def source_files(root):
    for file in source_paths(root):
        yield file.relative_to(root).as_posix(), file.read_text(encoding="utf-8")


def include_violations(files, root):
    found, unplaced = [], []
    for rel, text in files:
        own = layer_of(rel)
        if own is None:
            unplaced.append(rel)
            continue
        for target in INCLUDE.findall(text):
            other = layer_of(target)
            if other is None:
                if (root / target).exists():
                    unplaced.append(target)
                continue  # a header beside the file or a test-support header
            if other[0] > own[0]:
                found.append(f"{rel} ({own[1]}) includes {target} ({other[1]}): points up")
            elif other[0] == own[0] and other[1] != own[1]:
                found.append(f"{rel} ({own[1]}) includes {target} ({other[1]}): a sibling layer")
    return found, unplaced


# --- Where functions are declared and defined -------------------------------------------------
# A light reading of C++, enough for this code base's style: namespace-scope statements are
# split at ';' and at the '{' that opens a block; class bodies and function bodies are skipped.

COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                re.DOTALL)
CLASS_HEAD = re.compile(r"^(?:template\s*<.*>\s*)?(?:class|struct|union)\s+(?:alignas\s*\(.*?\)\s*)?([\w:]+)")
NAMESPACE_HEAD = re.compile(r"^(?:inline\s+)?namespace\s*([\w:]*)\s*$")
NAME_BEFORE_PAREN = re.compile(r"((?:\w+\s*::\s*)*~?\w+)\s*$")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_assert",
                 "noexcept", "alignas", "operator", "requires"}


def strip(text):
    """The text with comments, string and character literals and preprocessor lines blanked."""
    text = COMMENT_OR_LITERAL.sub(lambda m: '""' if m.group(0)[:1] in "R\"'" else " ", text)
    return re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.MULTILINE)


def function_name(statement):
    """The (possibly qualified) name a namespace-scope statement declares as a function, or None."""
    head = re.split(r"[({=;]", statement, maxsplit=1)
    if len(head) < 2 or statement[len(head[0])] != "(":
        return None
    match = NAME_BEFORE_PAREN.search(head[0])
    if not match:
        return None
    name = re.sub(r"\s+", "", match.group(1))
    if name.split("::")[-1] in NOT_FUNCTIONS or "operator" in head[0]:
        return None
    if re.match(r"^\s*(using|typedef|friend|extern\s+const)\b", statement):
        return None
    return name


def scan(text):
    """Yields ("class", ns, name), ("declares", ns, name) and ("defines", ns, name) for the
    namespace-scope statements of a file (anonymous namespaces excluded)."""
    text = strip(text)
    stack = []  # one entry per open brace: a namespace name, None (anonymous) or "block"
    statement, paren = [], 0
    i = 0
    while i < len(text):
        ch = text[i]
        i += 1
        at_namespace_scope = all(entry != "block" for entry in stack)
        if at_namespace_scope and ch in "()[]":
            paren += 1 if ch in "([" else -1
        if at_namespace_scope and (paren > 0 or ch not in "{};"):
            statement.append(ch)  # braces inside parentheses: a lambda or braced argument
            continue
        if ch == "}":
            if stack:
                stack.pop()
            statement, paren = [], 0
            continue
        if not at_namespace_scope:
            if ch == "{":
                stack.append("block")
            continue
        body = " ".join("".join(statement).split())
        statement = []
        named = [n for n in stack if n not in (None, "block")]
        ns = "::".join(named)
        anonymous = None in stack
        if ch == ";":
            name = function_name(body)
            if name and not anonymous:
                yield "declares", ns, name
            continue
        head = NAMESPACE_HEAD.match(body)
        if head:
            stack.append(head.group(1) or None)
            continue
        stack.append("block")
        klass = CLASS_HEAD.match(body)
        if klass and "(" not in body.split(klass.group(0), 1)[-1].split(":")[0]:
            if not anonymous:
                yield "class", ns, klass.group(1)
            continue
        if body.startswith(("enum", "extern")) or "=" in body.split("(")[0]:
            continue
        name = function_name(body)
        if name and not anonymous:
            yield "defines", ns, name


def candidates(ns, name):
    """The fully qualified names `name`, written inside namespace `ns`, may refer to."""
    parts = ns.split("::") if ns else []
    return ["::".join(parts[:k] + [name]) for k in range(len(parts), -1, -1)]


def definition_violations(files):
    classes, functions = {}, {}  # qualified name -> {file}
    definitions = []
    for rel, text in files:
        for kind, ns, name in scan(text):
            qualified = f"{ns}::{name}" if ns else name
            if kind == "class":
                classes.setdefault(qualified, set()).add(rel)
            elif kind == "declares" and rel.endswith((".hpp", ".h")):
                functions.setdefault(qualified, set()).add(rel)
            elif kind == "defines" and rel.endswith((".cpp", ".cc")):
                definitions.append((rel, ns, name))
    found = []
    for rel, ns, name in definitions:
        declared = declaring_files(ns, name, classes, functions)
        own = layer_of(rel)
        if not declared or own is None:
            continue
        ranks = {layer_of(f) for f in declared} - {None}
        if not ranks or own in ranks:
            continue
        where = min(ranks)
        if own[0] > where[0]:
            found.append(f"{rel} ({own[1]}) defines {name}, declared in {sorted(declared)[0]} ({where[1]}): "
                         "a definition above its declaration")
    return found


def declaring_files(ns, name, classes, functions):
    """The files that declare what a definition of `name` inside namespace `ns` defines: the
    class of a member (or of its outermost enclosing class), else the free function."""
    scope = name.rpartition("::")[0]
    if scope:
        for qualified in candidates(ns, scope) + candidates(ns, scope.split("::")[0]):
            if qualified in classes:
                return classes[qualified]
    for qualified in candidates(ns, name):
        if qualified in functions:
            return functions[qualified]
    return set()


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    files = list(source_files(root))
    found, unplaced = include_violations(files, root)
    found += definition_violations(files)
    for line in found:
        print(line)
    for rel in sorted(set(unplaced)):
        print(f"{rel}: in no layer; add its folder to LAYERS in scripts/check_layers.py")
    if found or unplaced:
        return 1
    print(f"layers: every include points down and every function is defined in its declaration's layer "
          f"({sum(len(g) for g in LAYERS)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
