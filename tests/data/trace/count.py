#!/usr/bin/env python3
"""Count the NCCL kernels of PyTorch profiler traces, independently of commtime.

Reads each Chrome-trace JSON (plain or gzip) with Python's json and gzip
modules and prints one CSV line per kind of collective:
op,size_B,ranks,count — op in nccl-tests' spelling, size_B the larger of
"In msg nelems" and "Out msg nelems" times the dtype's size (empty when the
kernel names no size), ranks the "Group size" (empty when absent), count
the kernels over every file.  With --steps, prints instead per file and
ProfilerStep: compute, comm and exposed time in ns (the union of compute
kernels, of NCCL kernels, and NCCL time outside every compute kernel),
each kernel placed in the step whose annotation holds its launch.
"""
import gzip
import json
import sys

SIZES = {"float": 4, "double": 8, "half": 2, "bfloat16": 2, "long": 8, "int": 4,
         "short": 2, "char": 1, "byte": 1, "bool": 1}
OPS = [("allreduce", "all_reduce"), ("allgather", "all_gather"),
       ("reducescatter", "reduce_scatter"), ("alltoall", "all_to_all"),
       ("broadcast", "broadcast")]


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def op_of(ev):
    name = ev["args"].get("Collective name")
    if name is None:
        name = ev["name"].split("_")[1].split("(")[0]
    key = name.lower().replace("_", "")
    for prefix, op in OPS:
        if key.startswith(prefix):
            return op
    if key == "reduce":
        return "reduce"
    if key in ("send", "recv", "sendrecv"):
        return "sendrecv"
    return name


def is_nccl(ev):
    return ev.get("cat", "").lower() == "kernel" and (
        ev["name"].startswith("ncclKernel_") or ev["name"].startswith("ncclDevKernel_"))


def kinds(paths):
    count = {}
    for path in paths:
        for ev in load(path):
            if ev.get("ph") != "X" or not is_nccl(ev):
                continue
            a = ev.get("args", {})
            size = ""
            if "In msg nelems" in a:
                n = max(a["In msg nelems"], a.get("Out msg nelems", 0))
                size = str(n * SIZES[a["dtype"].lower()])
            ranks = str(a["Group size"]) if "Group size" in a else ""
            key = (op_of(ev), size, ranks)
            count[key] = count.get(key, 0) + 1
    for key in sorted(count):
        print(",".join(key + (str(count[key]),)))


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def ns(x):
    return round(x * 1000)


def steps(paths):
    for path in paths:
        evs = load(path)
        win = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"])
                     for e in evs if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")
                     and not e.get("cat", "").startswith("gpu_"))
        launch = {e["args"]["correlation"]: ns(e["ts"]) for e in evs
                  if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
        per = {}
        for e in evs:
            if e.get("ph") != "X" or e.get("cat", "").lower() != "kernel":
                continue
            t = launch.get(e["args"].get("correlation"), ns(e["ts"]))
            for a, b, name in win:
                if a <= t < b:
                    per.setdefault(name, ([], []))[1 if is_nccl(e) else 0].append(
                        (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
        for name in sorted(per, key=lambda s: int(s.split("#")[1])):
            comp, comm = union(per[name][0]), union(per[name][1])
            inter = 0
            for a, b in comm:
                for c, d in comp:
                    inter += max(0, min(b, d) - max(a, c))
            total = sum(b - a for a, b in comm)
            print("%s,%s,%d,%d,%d" % (path, name.split("#")[1], sum(b - a for a, b in comp),
                                      total, total - inter))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--steps"]:
        steps(sys.argv[2:])
    else:
        kinds(sys.argv[1:])
