#!/usr/bin/env bash
# The e2e suite's tracing scripts (hello, the launcher, values, objects,
# vectors, exceptions, the hard cases with threads and async, filters,
# records, trust, held time, the report, the dumps and the C# compiler)
# again, with the IL-probe engine (CLRTRACE_ENGINE=il, which `clrtrace run`
# and the profiler read): every check of theirs passes under both engines;
# where the engines differ by design, the scripts say so and check the IL
# engine's own result (docs/tracer.md, "The IL-probe engine", lists the
# differences and their reasons).
#
# Usage: tests/e2e/run_ilsuite.sh [path/to/libclrtrace.so]
# Ends with "run_ilsuite.sh: N passed, M failed" (scripts).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib=${1:-${CLRTRACE_LIB:-}}
passed=0 failed=0
# The scripts: ilsuite.list (ctest runs each as its own test, e2e.il.NAME).
for script in $(grep -v '^#' "$here/ilsuite.list"); do
    echo "== run_$script.sh with the IL engine"
    if CLRTRACE_ENGINE=il bash "$here/run_$script.sh" ${lib:+"$lib"}; then
        passed=$((passed + 1))
    else
        echo "FAIL run_$script.sh with CLRTRACE_ENGINE=il"
        failed=$((failed + 1))
    fi
done
echo "run_ilsuite.sh: $passed passed, $failed failed"
((failed == 0))
