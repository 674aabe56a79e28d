#!/usr/bin/env bash
# Creates the Python benchmark venvs (relative to the repository root) and installs the pinned
# requirements into each. Idempotent: a venv whose requirements file is unchanged is skipped.
#
#   build/bench-venv          requirements.txt          clickhouse-connect 1.6.0 (the newest that talks
#                                                       to 18.16), clickhouse-driver
#   build/bench-venv-current  requirements-current.txt  clickhouse-connect current (+ Rust codec),
#                                                       clickhouse-driver
#   build/bench-venv-py312    requirements-py312.txt    st-clickhouse-py (wheels for CPython >= 3.12
#                                                       only; skipped with a note when no python3.12+
#                                                       is found: its runs then report UNSUPPORTED)
#
# Usage: bench/peers/python/setup.sh [all|old|current|py312]   (default all)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

make_venv() { # venv requirements python
    local venv="$root/build/$1" req="$here/$2" python="$3"
    if [ ! -x "$venv/bin/python" ]; then
        mkdir -p "$root/build"
        "$python" -m venv "$venv"
    fi
    local stamp="$venv/.chwire-requirements.sha256" want
    want="$(sha256sum "$req" | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        "$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip 1>&2
        "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req" 1>&2
        echo "$want" > "$stamp"
    fi
}

# A CPython >= 3.12: python3.13/python3.12 on PATH, else pyenv's, else none.
find_py312() {
    local p
    for p in python3.13 python3.12; do
        command -v "$p" >/dev/null 2>&1 && "$p" -c 'import venv' >/dev/null 2>&1 && { command -v "$p"; return; }
    done
    for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
        [ -x "$p" ] && { echo "$p"; return; }
    done
}

what="${1:-all}"
python="${PYTHON:-python3}"
if [ "$what" = all ] || [ "$what" = old ]; then make_venv bench-venv requirements.txt "$python"; fi
if [ "$what" = all ] || [ "$what" = current ]; then make_venv bench-venv-current requirements-current.txt "$python"; fi
if [ "$what" = all ] || [ "$what" = py312 ]; then
    py312="$(find_py312 || true)"
    if [ -n "$py312" ]; then
        make_venv bench-venv-py312 requirements-py312.txt "$py312"
    else
        echo "setup.sh: no CPython >= 3.12 found: st-clickhouse-py is not installed (its runs report UNSUPPORTED)" >&2
    fi
fi
