#!/usr/bin/env python3
"""Checks fslab's layering on a build tree (docs/design.md, "Layers").

Two readings, both from what the compiler and the preprocessor see:
  - includes: every #include "..." of a production file resolves to a
    header of a layer the file may use;
  - calls: the object files' symbols (nm) give, for each file, the files
    whose functions and data it uses.  No file may use a file of a layer it
    may not use, and no two files of one module may use each other, even
    through others (a circle of calls).

Usage: scripts/check-layers.py SOURCE_DIR BUILD_DIR
Prints each violation and exits 1 when there is one, 0 when the tree keeps
its layers, 2 on bad usage or a build tree without objects.
"""
import os
import re
import subprocess
import sys

# The rooms, lowest first.  A file belongs to the first room whose pattern
# matches its path; a room may include the headers of the rooms in its
# first list and call the files of the rooms in its second (itself always).
# The report's format leaf may include the model's header for its types,
# but calls nothing above it.
ROOMS = [
    ("lib", r"lib/", ["lib"], ["lib"]),
    # the modules' contracts, one public header each; the module's folder
    # is private to it
    ("provision-api", r"include/fslab/provision\.h$", ["lib"], []),
    ("bench-api", r"include/fslab/run\.h$", ["lib"], []),
    ("report-api", r"include/fslab/report\.h$", ["lib"], []),
    ("reproduce-api", r"include/fslab/reproduce\.h$", ["lib"], []),
    ("engine", r"bench/engine/", ["lib"], ["lib"]),
    ("bench", r"bench/", ["engine", "bench-api", "lib"], ["engine", "lib"]),
    ("provision", r"provision/", ["provision-api", "lib"], ["lib"]),
    ("report-format", r"report/format\.", ["report-model", "report-api", "lib"], ["lib"]),
    ("report-view", r"report/(text|html|json|plot|verdict|cdm_view|claims_view|view|"
     r"report|outputs|tmpdir|exchange)\.", ["report-view", "report-model", "report-format",
                                             "report-api", "lib"],
     ["report-view", "report-model", "report-format", "lib"]),
    ("report-model", r"report/", ["report-format", "report-api", "lib"], ["report-format", "lib"]),
    ("reproduce", r"reproduce/", ["provision-api", "bench-api", "report-api", "reproduce-api", "lib"],
     ["provision", "bench", "engine", "report-view", "report-model", "lib"]),
    ("cmd", r"cmd/", ["provision-api", "bench-api", "report-api", "reproduce-api", "lib"],
     ["reproduce", "provision", "bench", "engine", "report-view", "report-model",
      "report-format", "lib"]),
]
# Modules: a circle of calls between files of one module is an error.
MODULES = ["lib", "bench", "provision", "report", "reproduce", "cmd"]
SRC_DIRS = ["include", "lib", "bench", "provision", "report", "reproduce", "cmd"]


def room_of(path):
    for name, pattern, _, _ in ROOMS:
        if re.match(pattern, path):
            return name
    return None


def may_use(a, b, calls=False):
    if a == b:
        return True
    for name, _, includes, callees in ROOMS:
        if name == a:
            return b in (callees if calls else includes)
    return False


def module_of(path):
    return path.split("/", 1)[0]


def sources(top):
    out = []
    for d in SRC_DIRS:
        for root, _, files in os.walk(os.path.join(top, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), top))
    return sorted(out)


def check_includes(top, files, problems):
    by_name = {}
    for f in files:
        if f.endswith(".h"):
            by_name.setdefault(os.path.basename(f), []).append(f)
    for name, where in sorted(by_name.items()):
        if len(where) > 1:
            problems.append("header name %s is used %d times: %s (rename one)"
                            % (name, len(where), ", ".join(where)))
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for f in files:
        here = os.path.dirname(f)
        with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = inc.match(line)
                if not m:
                    continue
                want = m.group(1)
                # the header itself: beside the file, else by its name
                cand = os.path.normpath(os.path.join(here, want))
                if cand not in files:
                    hits = [h for h in files if h.endswith("/" + want) or h == want]
                    if len(hits) != 1:
                        continue  # a generated or system header
                    cand = hits[0]
                a, b = room_of(f), room_of(cand)
                if a and b and not may_use(a, b):
                    problems.append("%s:%d includes %s: %s may not use %s"
                                    % (f, n, cand, a, b))


def objects(build):
    out = {}
    for root, _, names in os.walk(os.path.join(build, "CMakeFiles")):
        if not re.search(r"CMakeFiles/(fslab_[a-z]+|fslab)\.dir", root):
            continue
        for n in names:
            if not n.endswith(".c.o"):
                continue
            full = os.path.join(root, n)
            rel = re.sub(r".*?CMakeFiles/[^/]+\.dir/", "", full)[:-2]
            if room_of(rel):
                out[rel] = full
    return out


def symbols(obj):
    res = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[-1] for l in res.splitlines() if len(l.split()) >= 3}
    res = subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                         check=True).stdout
    used = {l.split()[-1] for l in res.splitlines() if l.split()}
    return defined, used


def circles(nodes, edges):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check_calls(build, problems):
    objs = objects(build)
    if not objs:
        print("check-layers: no object files under %s/CMakeFiles: build first" % build,
              file=sys.stderr)
        sys.exit(2)
    owner, uses = {}, {}
    for src, obj in objs.items():
        d, u = symbols(obj)
        for s in d:
            owner[s] = src
        uses[src] = u
    edges = {}
    for src, u in uses.items():
        for s in u:
            dst = owner.get(s)
            if dst and dst != src:
                edges.setdefault(src, {}).setdefault(dst, set()).add(s)
    for src in sorted(edges):
        for dst in sorted(edges[src]):
            a, b = room_of(src), room_of(dst)
            if not may_use(a, b, calls=True):
                problems.append("%s calls %s (%s): %s may not use %s"
                                % (src, dst, ", ".join(sorted(edges[src][dst])[:4]), a, b))
    for mod in MODULES:
        nodes = [s for s in objs if module_of(s) == mod]
        sub = {s: {d for d in edges.get(s, {}) if module_of(d) == mod} for s in nodes}
        for comp in circles(nodes, sub):
            problems.append("circle of calls in %s/: %s" % (mod, " <-> ".join(comp)))
    return len(objs), sum(len(v) for v in edges.values())


def main():
    if len(sys.argv) != 3:
        print("usage: check-layers.py SOURCE_DIR BUILD_DIR (a build tree with its objects)",
              file=sys.stderr)
        return 2
    top, build = sys.argv[1], sys.argv[2]
    problems = []
    files = sources(top)
    check_includes(top, files, problems)
    n_obj, n_edges = check_calls(build, problems)
    for p in problems:
        print("check-layers: " + p)
    print("check-layers: %d files, %d objects, %d file-to-file uses, %d problems"
          % (len(files), n_obj, n_edges, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
