#!/usr/bin/env python3
"""Turns tests/sigblobs records into libFuzzer seed files: one byte selecting the
kind/mode as fuzz_sig.c reads it, then the blob. Usage: make_seeds.py SIGBLOBS_DIR OUT_DIR"""
import os, sys, hashlib

KINDS = ["method", "field", "property", "locals", "typespec", "methodspec"]

def records(path):
    rec = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line:
            if rec:
                yield rec
            rec = {}
            continue
        k, _, v = line.partition(": ")
        rec[k.rstrip(":")] = v
    if rec:
        yield rec

def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".txt"):
            continue
        for r in records(os.path.join(src, name)):
            kind = KINDS.index(r.get("kind", "method"))
            mode = r.get("mode", "")
            sel = kind | (8 if mode else 0) | (16 if mode == "runtime4" else 0)
            blob = bytes.fromhex(r.get("blob", ""))
            data = bytes([sel]) + blob
            with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
                f.write(data)
            n += 1
    print(f"{n} seeds written to {out}")

main()
