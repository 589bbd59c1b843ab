#!/usr/bin/env bash
# Smoke test of the README quick start on a clean data dir with no DATABASE_URL (embedded
# PostgreSQL), twice in a row: `npm start`, /healthz, a keyed request, SIGTERM to npm (as a
# terminal, a process manager or a container runtime sends it), npm exits 0 and nothing it started
# is left running (gatewayd, its embedded PostgreSQL); the second start comes up on the same data
# dir right after and does not recompile.
set -euo pipefail
cd "$(dirname "$0")/.."
data="$(mktemp -d)"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
trap 'rm -rf "$data"' EXIT
chmod 755 "$data" # as root the embedded server runs as user postgres and must reach the data dir
pgdir="$data/state/pg"

# Pids of processes whose working directory is the embedded data dir (PostgreSQL's postmaster and
# every child it forks run there).
in_pgdir() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null || true)" = "$pgdir" ] && echo "${p#/proc/}"
  done
  return 0
}

run_once() {
  local round="$1" log="$data/npm-start-$1.log"
  env -u DATABASE_URL GATEWAY_DATA_DIR="$data/state" GATEWAY_LISTEN="127.0.0.1:$port" setsid npm start >"$log" 2>&1 &
  local npm_pid=$!
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$npm_pid" 2>/dev/null || break
    sleep 1
  done
  local health status token daemon_pid code
  health="$(curl -sS "http://127.0.0.1:$port/healthz" || true)"
  [ "$health" = '{"status":"ok"}' ] || { echo "smoke[$round]: /healthz answered: $health"; tail -20 "$log"; exit 1; }
  token="$(cat "$data/state/admin.token")"
  status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/project")"
  [ "$status" = 200 ] || { echo "smoke[$round]: keyed request answered $status"; exit 1; }
  status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/v1/project")"
  [ "$status" = 401 ] || { echo "smoke[$round]: unkeyed request answered $status"; exit 1; }
  # The web console is built by npm start and served: the page and its one script (docs/console.md).
  for file in /console /console/console.js; do
    status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$file")"
    [ "$status" = 200 ] || { echo "smoke[$round]: $file answered $status"; exit 1; }
  done
  daemon_pid="$(pgrep -s "$npm_pid" -f "^node dist/daemon/main.js" || true)"
  [ -n "$daemon_pid" ] || { echo "smoke[$round]: gatewayd process not found"; exit 1; }
  [ -n "$(in_pgdir)" ] || { echo "smoke[$round]: embedded PostgreSQL process not found"; exit 1; }
  kill -TERM "$npm_pid"
  code=0; wait "$npm_pid" || code=$?
  [ "$code" = 0 ] || { echo "smoke[$round]: npm start exited $code after SIGTERM"; tail -20 "$log"; exit 1; }
  if kill -0 "$daemon_pid" 2>/dev/null; then echo "smoke[$round]: gatewayd (pid $daemon_pid) still running after SIGTERM to npm"; exit 1; fi
  local left; left="$(in_pgdir)"
  [ -z "$left" ] || { echo "smoke[$round]: embedded PostgreSQL still running: $left"; exit 1; }
  left="$(pgrep -s "$npm_pid" || true)"
  [ -z "$left" ] || { echo "smoke[$round]: processes of npm start still running: $left"; exit 1; }
}

run_once 1
run_once 2
if grep -q '^build: compiling' "$data/npm-start-2.log"; then
  echo "smoke: the second npm start recompiled though nothing changed"; head -5 "$data/npm-start-2.log"; exit 1
fi
echo "smoke: quick start ok twice (healthz, keyed request, console, SIGTERM to npm -> exit 0, nothing left running, no recompile)"
