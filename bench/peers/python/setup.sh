#!/usr/bin/env bash
# Creates the Python benchmark venv at build/bench-venv (relative to the repository root) and
# installs bench/peers/python/requirements.txt into it. Idempotent: re-running only re-checks
# the pinned requirements (skipped entirely when requirements.txt is unchanged).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/build/bench-venv"
req="$here/requirements.txt"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$root/build"
    "$python" -m venv "$venv"
fi
stamp="$venv/.chwire-requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip 1>&2
    "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req" 1>&2
    echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
