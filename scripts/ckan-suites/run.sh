#!/usr/bin/env bash
# Runs CKAN's own action, activity and DataStore tests against this catalogue over HTTP.
#   scripts/ckan-suites/run.sh 2.11 [pytest args...]     (2.9, 2.10 or 2.11)
# CKAN's tests come from a git mirror of ckan/ckan at run time (CKAN_MIRROR, default the search
# tool's /work/.mirror/ckan+ckan/repo); nothing of CKAN's is kept in this repository. The shim in
# shim/ stands in for CKAN's Python API (call_action, the factories, the fixtures) and sends every
# call to the catalogue, started by server.ts with service.api_compat set to the version.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="${1:-2.11}"; shift || true
mirror="${CKAN_MIRROR:-/work/.mirror/ckan+ckan/repo}"
case "$version" in
  2.9) tag=ckan-2.9.11 ;;
  2.10) tag=$(git -C "$mirror" tag | grep -E '^ckan-2\.10\.[0-9]+$' | sort -t. -k3 -n | tail -1) ;;
  2.11) tag=ckan-2.11.5 ;;
  *) echo "version: 2.9, 2.10 or 2.11" >&2; exit 2 ;;
esac
work="${WORK:-$(mktemp -d /tmp/ckan-suites.XXXX)}"
mkdir -p "$work/suite"
files=$(git -C "$mirror" ls-tree -r --name-only "$tag" -- ckan/tests/logic/action ckanext/activity/tests/logic ckanext/datastore/tests \
  | grep -E '^(ckan/tests/logic/action/test_[a-z_]+\.py|ckanext/activity/tests/logic/test_[a-z_]+\.py|ckanext/datastore/tests/test_(create|delete|search|upsert|info|dump)\.py)$')
for f in $files; do
  case "$f" in
    ckan/tests/logic/action/*) dir=core ;;
    ckanext/activity/*) dir=activity ;;
    ckanext/datastore/*) dir=datastore ;;
  esac
  mkdir -p "$work/suite/$dir"
  git -C "$mirror" show "$tag:$f" > "$work/suite/$dir/$(basename "$f")"
done
cat > "$work/suite/pytest.ini" <<INI
[pytest]
markers =
    ckan_config: a CKAN setting for the test
filterwarnings = ignore
INI
port=$((20000 + RANDOM % 20000))
(cd "$repo" && PORT=$port API_COMPAT=$version exec node --import tsx scripts/ckan-suites/server.ts) > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q "Listening on" "$work/server.log" 2>/dev/null && break; sleep 0.5; done
cd "$work/suite"
HARNESS_URL="http://127.0.0.1:$port" API_COMPAT=$version CKAN_VERSION="${tag#ckan-}" HARNESS_REPORT="$work/report.json" \
  PYTHONPATH="$here/shim" python3 -m pytest -p harness.plugin -p no:cacheprovider --import-mode=importlib -q \
  -o console_output_style=classic "${@:-.}" > "$work/pytest.log" 2>&1 || true
python3 "$here/summary.py" "$work/report.json" "$tag"
echo "(details: $work)"
