#!/usr/bin/env bash
# Times the stages of `make test` (the CI budget: docs/ARCHITECTURE.md, "CI budget").
#
#   scripts/stage.sh begin               start a new table (build/stage-times.tsv)
#   scripts/stage.sh run NAME CMD [ARG…]  run CMD, add NAME and its seconds to the table; a
#                                        failing CMD prints the table so far and fails
#   scripts/stage.sh report              print the table and the total
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TABLE="$ROOT/build/stage-times.tsv"

report() {
    [ -f "$TABLE" ] || return 0
    echo
    echo "make test: stage durations (build/stage-times.tsv)"
    awk -F'\t' '{ printf "  %-18s %6d s  %s\n", $1, $2, $3; total += $2 }
        END { printf "  %-18s %6d s  (%.1f min)\n", "total", total, total / 60 }' "$TABLE"
}

case "${1:-}" in
    begin)
        mkdir -p "$ROOT/build"
        : > "$TABLE"
        ;;
    run)
        name="$2"
        shift 2
        start=$(date +%s)
        "$@"
        rc=$?
        end=$(date +%s)
        status=ok
        [ "$rc" -eq 0 ] || status="FAILED (exit $rc)"
        printf '%s\t%d\t%s\n' "$name" "$((end - start))" "$status" >> "$TABLE"
        if [ "$rc" -ne 0 ]; then
            report
        fi
        exit "$rc"
        ;;
    report)
        report
        ;;
    *)
        echo "usage: scripts/stage.sh begin | run NAME CMD [ARG...] | report" >&2
        exit 2
        ;;
esac
