#!/usr/bin/env bash
# The Elixir binding's toolchain: Debian's elixir (1.14) and erlang-dev (OTP 25, the NIF
# headers rustler's build does not need but `mix` expects beside erl). Idempotent and quiet
# when they are there; installs them with apt otherwise (as root, like scripts/server.sh).
set -euo pipefail
if command -v mix >/dev/null 2>&1 && command -v erl >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "elixir-deps.sh: elixir is missing: apt-get install elixir erlang-dev (as root)" >&2
    exit 1
fi
echo "elixir-deps.sh: installing Debian's elixir and erlang-dev" >&2
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q elixir erlang-dev >/dev/null
