#!/usr/bin/env bash
# The deploy guide, rehearsed (docs/deploy.md, "Rehearsal"): brings up the topology of docs/deploy.md without Docker —
# a private 3-node nats-server cluster, a scratch database on the machine's PostgreSQL (127.0.0.1:5432, user root,
# trust), nginx running docs/nginx.conf itself (only the two upstream addresses and the listen address substituted)
# — then scripts/rehearse-deploy.mjs starts the two service instances and drives everything from outside, through
# nginx: login, cross-instance SSE, heartbeats and no idle cut over 2+ minutes, the tool endpoint, the client address
# behind nginx (TRUST_PROXY) and the abuse limits all instances share (login throttling, client registration), an
# instance SIGKILLed under open streams, a rolling restart under load with 1,000 open streams.
#
# Needs: nginx (Debian package), nats-server, psql/createdb, a built service (`npm run build`; built here if absent).
# Exits non-zero on any failed check; removes every process, file and the database it created (trap).
# Env: REHEARSE_KEEP=1 keeps the temp dir (logs) after the run; PGHOST_URL overrides the admin connection.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

log() { printf '[rehearse %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*"; exit 1; }

for bin in nginx nats-server psql node; do
  command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] || die "$bin not found (scripts/ci-system-deps.sh installs nginx)"
done
NGINX_BIN="$(command -v nginx || echo /usr/sbin/nginx)"
NATS_BIN="$(command -v nats-server || echo /usr/sbin/nats-server)"
[ -f dist/src/main.js ] || { log "building (npm run build)"; npm run build >/dev/null; }

# 1,000 streams through nginx: each is two descriptors in nginx (client + upstream) and one in the driver and in an
# instance.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

TMP="$(mktemp -d /tmp/rehearse-deploy.XXXXXX)"
PG_ADMIN="${PGHOST_URL:-postgres://root@127.0.0.1:5432/postgres}"
DB="rehearse_$(date +%s)_$$"
PIDS=()

cleanup() {
  local rc=$?
  set +e
  # Service instances started by the driver (it kills them itself; these pid files cover a driver that died).
  for f in "$TMP"/svc*.pid; do
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  [ -f "$TMP/nginx.pid" ] && kill -QUIT "$(cat "$TMP/nginx.pid")" 2>/dev/null
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 0.5
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  [ -f "$TMP/nginx.pid" ] && kill -9 "$(cat "$TMP/nginx.pid")" 2>/dev/null
  psql "$PG_ADMIN" -q -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)" >/dev/null 2>&1
  if [ "${REHEARSE_KEEP:-0}" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  if [ "$rc" = 0 ]; then log "passed"; else log "exit $rc"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Free TCP ports on 127.0.0.1 (bound then released; the machine's own NATS on 4222 is never used).
free_ports() {
  node -e "
    const net = require('net'); const n = +process.argv[1]; const out = []; const held = [];
    (function next() {
      if (out.length === n) { held.forEach((s) => s.close()); console.log(out.join(' ')); return; }
      const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; if (p !== 4222) out.push(p); held.push(s); next(); });
    })();" "$1"
}
read -r N1 N2 N3 R1 R2 R3 M1 M2 M3 P1 P2 PX <<<"$(free_ports 12)"

# --- PostgreSQL: a scratch database on the machine's server -------------------------------------------------------
pg_isready -h 127.0.0.1 -p 5432 -q || die "PostgreSQL is not answering on 127.0.0.1:5432"
psql "$PG_ADMIN" -q -c "CREATE DATABASE \"$DB\"" || die "could not create database $DB"
DATABASE_URL="postgres://root@127.0.0.1:5432/$DB"
log "database $DB"

# --- NATS: three nodes with routes between them (docs/compose.yaml's nats1..3), core NATS, no JetStream -----------
i=0
for spec in "1 $N1 $R1 $M1 $R2 $R3" "2 $N2 $R2 $M2 $R1 $R3" "3 $N3 $R3 $M3 $R1 $R2"; do
  read -r n port route mon other1 other2 <<<"$spec"
  "$NATS_BIN" --name "rehearse-nats$n" -a 127.0.0.1 -p "$port" -m "$mon" --cluster_name rehearse \
    --cluster "nats://127.0.0.1:$route" --routes "nats-route://127.0.0.1:$other1,nats-route://127.0.0.1:$other2" \
    >"$TMP/nats$n.log" 2>&1 &
  PIDS+=("$!")
  i=$((i + 1))
done
for mon in "$M1" "$M2" "$M3"; do
  for _ in $(seq 1 50); do
    curl -fsS "http://127.0.0.1:$mon/healthz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fsS "http://127.0.0.1:$mon/healthz" >/dev/null || die "nats node on monitor port $mon not healthy"
done
# Each node routes to the two others.
for _ in $(seq 1 50); do
  routes=0
  for mon in "$M1" "$M2" "$M3"; do
    routes=$((routes + $(curl -fsS "http://127.0.0.1:$mon/routez" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).num_routes))')))
  done
  [ "$routes" -ge 6 ] && break
  sleep 0.2
done
[ "$routes" -ge 6 ] || die "nats cluster: $routes routes, expected 6"
log "nats cluster: nodes on $N1, $N2, $N3 ($routes routes)"

# --- nginx: docs/nginx.conf itself, inside a minimal main configuration ---------------------------------------------
# Substituted, and nothing else: `server svc1:3000` and `server svc2:3000` become the two instances' 127.0.0.1 ports,
# `listen 80;` becomes `listen 127.0.0.1:<free port>;`. docs/nginx.conf is an http-context file (conf.d style, as the
# nginx image includes it), so the main file around it is written here — pid, error log, temp paths under $TMP.
sed -e "s/server svc1:3000 /server 127.0.0.1:$P1 /" -e "s/server svc2:3000 /server 127.0.0.1:$P2 /" \
    -e "s/^\(\s*\)listen 80;/\1listen 127.0.0.1:$PX;/" docs/nginx.conf >"$TMP/svc.conf"
[ "$(grep -c "server 127.0.0.1:\($P1\|$P2\) " "$TMP/svc.conf")" = 2 ] || die "upstream substitution in docs/nginx.conf failed"
grep -q "listen 127.0.0.1:$PX;" "$TMP/svc.conf" || die "listen substitution in docs/nginx.conf failed"
diff <(sed -e "s/127.0.0.1:$P1/svc1:3000/" -e "s/127.0.0.1:$P2/svc2:3000/" -e "s/listen 127.0.0.1:$PX;/listen 80;/" "$TMP/svc.conf") docs/nginx.conf \
  >/dev/null || die "the nginx configuration differs from docs/nginx.conf beyond the substituted addresses"
mkdir -p "$TMP/nginx"
cat >"$TMP/nginx.conf" <<EOF
worker_processes 2;
worker_rlimit_nofile 20000;
pid $TMP/nginx.pid;
error_log $TMP/nginx-error.log warn;
events { worker_connections 8192; }
http {
    access_log $TMP/nginx-access.log;
    client_body_temp_path $TMP/nginx/client_body;
    proxy_temp_path $TMP/nginx/proxy;
    fastcgi_temp_path $TMP/nginx/fastcgi;
    uwsgi_temp_path $TMP/nginx/uwsgi;
    scgi_temp_path $TMP/nginx/scgi;
    include $TMP/svc.conf;
}
EOF
"$NGINX_BIN" -t -q -c "$TMP/nginx.conf" -p "$TMP/nginx" || die "nginx -t"
"$NGINX_BIN" -c "$TMP/nginx.conf" -p "$TMP/nginx" -g 'daemon on;' || die "nginx did not start"
for _ in $(seq 1 25); do [ -s "$TMP/nginx.pid" ] && break; sleep 0.2; done
log "nginx $("$NGINX_BIN" -v 2>&1 | sed 's/.*\///') on 127.0.0.1:$PX -> 127.0.0.1:$P1, 127.0.0.1:$P2"

# --- Migrations as a separate step and the accounts, with the CLI (README "Admin CLI") ----------------------------
cli() { DATABASE_URL="$DATABASE_URL" node dist/src/cli/main.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const o=JSON.parse(s);console.log(process.argv[1].split(".").reduce((a,k)=>a[k],o))})' "$1"; }
cli migration run >"$TMP/migration.log" || die "migration run"
PASSWORD="rehearse-$(date +%s)-pw"
CO_A="$(cli company create --name 'Rehearsal A' | json company.uuid)"
cli user create --company "$CO_A" --email a@rehearse.test --name 'User A' --password "$PASSWORD" >/dev/null
CO_B="$(cli company create --name 'Rehearsal B' | json company.uuid)"
cli user create --company "$CO_B" --email b@rehearse.test --name 'User B' --password "$PASSWORD" >/dev/null
# The abuse checks' targets (login throttling by pair, address and email), in company A.
cli user create --company "$CO_A" --email c@rehearse.test --name 'User C' --password "$PASSWORD" >/dev/null
cli user create --company "$CO_A" --email d@rehearse.test --name 'User D' --password "$PASSWORD" >/dev/null
log "companies $CO_A (load, streams, abuse checks) and $CO_B (the idle stream)"

# --- The instances and the checks ------------------------------------------------------------------------------------
export REHEARSE_TMP="$TMP" REHEARSE_PROXY="http://127.0.0.1:$PX" REHEARSE_PORTS="$P1,$P2" REHEARSE_PASSWORD="$PASSWORD"
export REHEARSE_DATABASE_URL="$DATABASE_URL" REHEARSE_NATS="nats://127.0.0.1:$N1,nats://127.0.0.1:$N2,nats://127.0.0.1:$N3"
# In the background and waited for, so that a signal to this script runs the cleanup at once (and stops the driver).
node scripts/rehearse-deploy.mjs &
PIDS+=("$!")
wait "$!"
# What nginx saw: connections refused by a stopped instance (each one retried on the other instance, POST included,
# since nothing had been sent), and never "no live upstreams" (both instances out of the rotation at once).
E="$TMP/nginx-error.log"
grep -q '\[emerg\]\|\[alert\]' "$E" && die "nginx logged an emergency: $(grep '\[emerg\]\|\[alert\]' "$E" | head -3)"
refused="$(grep -c 'connect() failed (111' "$E" || true)"
refused_post="$(grep 'connect() failed (111' "$E" | grep -c 'request: "POST' || true)"
log "nginx: $refused connections refused by a stopped instance and passed to the other one ($refused_post of them POST)"
nolive="$(grep -c 'no live upstreams' "$E" || true)"
[ "$nolive" = 0 ] || die "nginx answered $nolive requests with \"no live upstreams\" (both instances out of the rotation)"
