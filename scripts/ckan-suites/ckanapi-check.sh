#!/usr/bin/env bash
# ckanapi (github:ckan/ckanapi, from a git mirror at run time) against the catalogue under one
# api_compat setting:   scripts/ckan-suites/ckanapi-check.sh 2.11
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="${1:-2.9}"
mirror="${CKANAPI_MIRROR:-/work/.mirror/ckan+ckanapi/repo}"
work="$(mktemp -d /tmp/ckanapi-check.XXXX)"
git -C "$mirror" archive HEAD ckanapi | tar -x -C "$work"
# ckanapi reads its own version from the installed distribution's metadata
ver=$(git -C "$mirror" show HEAD:pyproject.toml 2>/dev/null | sed -n 's/^version *= *"\(.*\)"/\1/p' | head -1)
mkdir -p "$work/ckanapi-${ver:-0}.dist-info"
printf 'Metadata-Version: 2.1\nName: ckanapi\nVersion: %s\n' "${ver:-0}" > "$work/ckanapi-${ver:-0}.dist-info/METADATA"
port=$((20000 + RANDOM % 20000))
(cd "$repo" && PORT=$port API_COMPAT=$version exec node --import tsx scripts/ckan-suites/server.ts) > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q "Listening on" "$work/server.log" 2>/dev/null && break; sleep 0.5; done
HARNESS_URL="http://127.0.0.1:$port" API_COMPAT=$version PYTHONPATH="$work" python3 "$here/ckanapi-check.py"
