#!/usr/bin/env bash
# Coverage-guided fuzzing of chwire-proto's input decoders (see docs/FUZZING.md).
#
#   scripts/fuzz.sh SECONDS [--stable] [TARGET...]
#
# Runs each target (default: all of fuzz/Cargo.toml's) for SECONDS with libFuzzer, starting
# from the committed seeds (fuzz/corpus/T, read only) and a scratch corpus under build/fuzz/
# that keeps growing between runs. With a nightly toolchain the targets are built with
# AddressSanitizer; with --stable (or without nightly) they are built on stable Rust
# without a sanitizer (`cargo fuzz -s none`), which still finds panics, aborts, hangs and
# leaks of memory limits. A crash stops the run: its input is in build/fuzz/artifacts/T/.
# FUZZ_RUNS=N also stops a target after N executions (whichever comes first), e.g.
# `FUZZ_RUNS=10000000 scripts/fuzz.sh 3600 --stable` for the 10M-per-target goal.
# Prints one line per target: runs, coverage, features, corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:?usage: scripts/fuzz.sh SECONDS [--stable] [TARGET...]}
shift
STABLE=0
if [[ "${1:-}" == "--stable" ]]; then
    STABLE=1
    shift
fi
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    TARGETS=(packets native_column type_name frames binary_values native_file text_input arrow_input arrow_round_trip)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz >&2
fi

if [[ $STABLE == 0 ]] && rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    FUZZ=(cargo +nightly fuzz)
    MODE=()
    echo "fuzz.sh: nightly with AddressSanitizer" >&2
else
    FUZZ=(cargo fuzz)
    MODE=(-s none --target-dir fuzz/target/stable)
    echo "fuzz.sh: stable, no sanitizer" >&2
fi

dict_of() {
    case "$1" in
        type_name | native_column | arrow_round_trip) echo fuzz/dict/types.dict ;;
        text_input | arrow_input) echo fuzz/dict/files.dict ;;
        *) echo fuzz/dict/packets.dict ;;
    esac
}

mkdir -p build/fuzz
# The fuzz crate is a workspace of its own: start from the main lockfile, so that it builds
# the dependency versions the tests ran with.
[[ -f fuzz/Cargo.lock ]] || cp Cargo.lock fuzz/Cargo.lock
"${FUZZ[@]}" build -O "${MODE[@]}" >&2
RUNS=()
[[ -n "${FUZZ_RUNS:-}" ]] && RUNS=(-runs="$FUZZ_RUNS")
status=0
for t in "${TARGETS[@]}"; do
    mkdir -p "build/fuzz/corpus/$t" "build/fuzz/artifacts/$t" fuzz/regressions/"$t"
    log="build/fuzz/$t.log"
    if "${FUZZ[@]}" run -O "${MODE[@]}" "$t" "build/fuzz/corpus/$t" "fuzz/corpus/$t" "fuzz/regressions/$t" -- \
        -max_total_time="$SECONDS_PER_TARGET" -dict="$(dict_of "$t")" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t/" "${RUNS[@]}" >"$log" 2>&1; then
        result=ok
    else
        result="CRASH (see $log and build/fuzz/artifacts/$t/)"
        status=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    printf '%-14s runs=%-10s cov=%-6s ft=%-6s corpus=%-6s %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
exit $status
