#!/usr/bin/env bash
# Smoke test of the README quick start on a clean data dir with no DATABASE_URL (embedded
# PostgreSQL): `npm start`, /healthz, a keyed request, SIGTERM to gatewayd, exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."
data="$(mktemp -d)"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
log="$data/npm-start.log"
trap 'rm -rf "$data"' EXIT
chmod 755 "$data" # as root the embedded server runs as user postgres and must reach the data dir
env -u DATABASE_URL GATEWAY_DATA_DIR="$data/state" GATEWAY_LISTEN="127.0.0.1:$port" setsid npm start >"$log" 2>&1 &
npm_pid=$!
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 1
done
health="$(curl -sS "http://127.0.0.1:$port/healthz")"
[ "$health" = '{"status":"ok"}' ] || { echo "smoke: /healthz answered: $health"; tail -20 "$log"; exit 1; }
token="$(cat "$data/state/admin.token")"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/project")"
[ "$status" = 200 ] || { echo "smoke: keyed request answered $status"; exit 1; }
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/project")"
[ "$status" = 401 ] || { echo "smoke: unkeyed request answered $status"; exit 1; }
daemon_pid="$(pgrep -s "$npm_pid" -f "^node dist/daemon/main.js" || true)"
[ -n "$daemon_pid" ] || { echo "smoke: gatewayd process not found"; exit 1; }
kill -TERM "$daemon_pid"
code=0; wait "$npm_pid" || code=$?
[ "$code" = 0 ] || { echo "smoke: npm start exited $code after SIGTERM"; tail -20 "$log"; exit 1; }
if pgrep -f "$data/state/pg" >/dev/null; then echo "smoke: embedded PostgreSQL still running"; exit 1; fi
echo "smoke: quick start ok (healthz, keyed request, SIGTERM -> exit 0)"
