#!/usr/bin/env bash
# fuzz/run.sh HARNESS SECONDS — builds the libFuzzer harnesses with clang-14 and
# runs one for SECONDS, seeded from tests/sigblobs. New crashes are left in
# fuzz/ as crash-*; turn each into a tests/sigblobs/crashes.txt record.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
harness=${1:?usage: fuzz/run.sh fuzz_sig|fuzz_compressed|fuzz_trace|fuzz_meta|fuzz_il|fuzz_expr|fuzz_pdb SECONDS}
seconds=${2:-30}
build=${CLRTRACE_FUZZ_BUILD:-$root/build-fuzz}
# ctest runs the harnesses side by side (-j2): one configures and builds the
# tree at a time, and each has its own corpus and seeds.
mkdir -p "$build"
(
  flock 9
  CC=clang-14 cmake -S "$root" -B "$build" -DCLRTRACE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" --target "$harness" -j2 >/dev/null
) 9>"$build/.build.lock"
corpus="$build/corpus-$harness"
seeds="$build/seeds-$harness"
mkdir -p "$corpus"
if [ "$harness" = fuzz_trace ]; then
  seeds="$here/seeds-trace"   # small binary traces written by tests/unit/test_event.c's writer
elif [ "$harness" = fuzz_expr ]; then
  seeds="$here/seeds-expr"    # conditions written by hand (tests/unit/test_expr.c's)
elif [ "$harness" = fuzz_pdb ]; then
  seeds="$root/tests/meta/pdb"  # Hello's PDB, its assembly and the embedded one's
elif [ "$harness" = fuzz_il ]; then
  seeds="$here/seeds-il"      # method bodies made by hand (tests/unit/test_il.c's)
elif [ "$harness" = fuzz_meta ]; then
  # Small real assemblies (the shared framework's facades) and the one-byte
  # inputs that select fuzz/fuzz_meta.c's synthetic-assembly mutations.
  rm -rf "$seeds" && mkdir -p "$seeds"
  fw=$(dotnet --list-runtimes 2>/dev/null | awk '$1 == "Microsoft.NETCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v }')
  [ -d "$fw" ] && find "$fw" -maxdepth 1 -name '*.dll' -size -20k -exec cp {} "$seeds/" \;
  for b in 0 1 2 3 4 5 6 7; do printf "\\$(printf %o "$b")" > "$seeds/byte$b"; done
else
  python3 "$here/make_seeds.py" "$root/tests/sigblobs" "$seeds" >/dev/null
fi
cd "$here"
# The harness's own status decides (grep's and pipefail's must not hide a
# crash: `pipeline || true` would reset PIPESTATUS).
set +e
# A crash's input goes to the build tree ($build/HARNESS-crash-...), not
# the sources; one found once is kept in the seeds (seeds-trace's
# chrome-injected-first.clrt: dump --chrome's "args" of an injected call
# with nothing before it).
"$build/fuzz/$harness" -artifact_prefix="$build/$harness-" -max_total_time="$seconds" -print_final_stats=1 -max_len=$([ "$harness" = fuzz_meta ] && echo 65536 || echo 4096) \
    -timeout=10 -rss_limit_mb=2048 "$corpus" "$seeds" 2>&1 | tee "$build/$harness.log" |
    grep -E "^(stat::|==|SUMMARY|Done)"
status=${PIPESTATUS[0]}
set -e
test "$status" -eq 0
