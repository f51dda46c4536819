#!/usr/bin/env python3
"""Checks the replayed calls of bench/Workload's `calls N` mode
(tests/e2e/run_record.sh, cases/record.case): each value of thousands of
calls, most read at the locations the first calls learned (argmap.c),
against what Program.cs computes from the arguments.

  check_workload_calls.py REPLAY   the lines of Step's calls agree with
                                   Program.cs and come as often as it makes
                                   them (N = 100000); prints the first wrong
                                   lines (exit 1)
"""
import re, sys
n = {}
bad = []
rules = [
    ("add", r" Bench\.Ops\.Add\(int a=(-?\d+), int b=3\) -> int (-?\d+)$", lambda m: int(m[2]) == int(m[1]) + 3),
    ("mul", r" Bench\.Ops\.Mul\(double a=(\S+), double b=0\.5\) -> double (\S+)$", lambda m: float(m[2]) == float(m[1]) * 0.5),
    ("len", r' Bench\.Ops\.Len\(string s="([a-z]+)"\) -> int (\d+)$', lambda m: int(m[2]) == len(m[1])),
    ("scale", r" Bench\.Ops\.Scale\(Vec v=\{X=(\S+), Y=1\}, double k=2\) -> Vec \{X=(\S+), Y=2\}$", lambda m: float(m[2]) == 2 * float(m[1])),
    ("mix", r' Bench\.Ops\.Mix\(int a=(-?\d+), long b=7, double c=1\.5, string d="([a-z]+)", Vec e=\{X=(\S+), Y=2\}\) -> long (-?\d+)$',
     lambda m: int(m[4]) == int(m[1]) + 8 + len(m[2]) + int(float(m[3]))),
    ("square", r" Bench\.Square\.Area\(this=Bench\.Square@0x[0-9a-f]+, double scale=(\d+)\) -> double (\S+)$", lambda m: float(m[2]) == 4 * int(m[1])),
    ("circle", r" Bench\.Circle\.Area\(this=Bench\.Circle@0x[0-9a-f]+, double scale=(\d+)\) -> double (\S+)$", lambda m: abs(float(m[2]) - 3.14159 * int(m[1])) < 1e-9),
    ("sides4", r" Bench\.Square\.Sides\(this=Bench\.Square@0x[0-9a-f]+\) -> int 4$", lambda m: True),
    ("sides0", r" Bench\.Shape\.Sides\(this=Bench\.Circle@0x[0-9a-f]+\) -> int 0$", lambda m: True),
    ("fibleaf", r" Bench\.Ops\.Fib\(int n=([01])\) -> int (\d+)$", lambda m: m[1] == m[2]),
    # Loop: shapes = { new Square(2), new Circle(1) }, ishapes the same two.
    ("step", r" Bench\.Program\.Step\(int i=\d+, Shape\[\] shapes=Shape\[2\] \{Bench\.Square\{side=2\}, Bench\.Circle\{radius=1\}\}, IShape\[\] ishapes=IShape\[2\] \{Bench\.Square\{side=2\}, Bench\.Circle\{radius=1\}\}\) \{$", lambda m: True),
]
rules = [(k, re.compile(r), f) for k, r, f in rules]
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    for k, r, f in rules:
        m = r.search(line)
        if m:
            n[k] = n.get(k, 0) + 1
            if not f(m):
                bad.append(line)
            break
# Program.cs: a warm-up loop of min(100000 / 19, 20000) = 5263 steps, then 5263 more;
# Fib(4) has 5 leaves.
want = 2 * 5263
for k, _, _ in rules:
    expect = want * 5 if k == "fibleaf" else want
    if n.get(k, 0) != expect:
        bad.append(f"{k}: {n.get(k, 0)} lines, expected {expect}")
if bad:
    print("\n".join(bad[:10]))
    sys.exit(1)
