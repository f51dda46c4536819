#!/usr/bin/env bash
# The e2e suite's tracing scripts (hello, the launcher, values, objects,
# vectors, exceptions, the hard cases with threads and async, filters,
# records, trust, held time, the report, the dumps, the C# compiler, the
# exports and containers) again, with the ELT engine (CLRTRACE_ENGINE=elt,
# which `clrtrace run` and the profiler read; the suite itself runs with the
# IL engine, the default: lib_checks.sh's ct_setup): every check of theirs
# passes under both engines; where the engines differ by design, the scripts
# say so and check each engine's own result (docs/tracer.md, "Where the
# engines differ", lists the differences and their reasons).
#
# Usage: tests/e2e/run_eltsuite.sh [path/to/libclrtrace.so]
# Ends with "run_eltsuite.sh: N passed, M failed" (scripts).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib=${1:-${CLRTRACE_LIB:-}}
passed=0 failed=0
# The scripts: eltsuite.list (ctest runs each as its own test, e2e.elt.NAME).
for script in $(grep -v '^#' "$here/eltsuite.list"); do
    echo "== run_$script.sh with the ELT engine"
    if CLRTRACE_ENGINE=elt bash "$here/run_$script.sh" ${lib:+"$lib"}; then
        passed=$((passed + 1))
    else
        echo "FAIL run_$script.sh with CLRTRACE_ENGINE=elt"
        failed=$((failed + 1))
    fi
done
echo "run_eltsuite.sh: $passed passed, $failed failed"
((failed == 0))
