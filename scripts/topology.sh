#!/usr/bin/env bash
# docker/compose.yaml's topology with real processes on this machine, no Docker: Debian's nginx running
# docker/nginx.conf (only the upstream addresses and the listen port rewritten), one command process and
# two socket processes (SALVO_REDIS_SUBSCRIBE=games), on one database, linked by Redis.
#
#   scripts/topology.sh start --port 8000 --database-url postgresql://salvo:salvo@127.0.0.1/salvo \
#                             --redis-url redis://127.0.0.1:6379/0 [--sockets 2] [--dir var/topology]
#   scripts/topology.sh stop [--dir var/topology]
#
# start launches every service process at the same moment (as compose does: they race on the migrations,
# which run under a PostgreSQL advisory lock), then nginx, and exits 0 only once every process answers
# /readyz on its own port and both of nginx's pools answer through the front; otherwise it stops what it
# started, prints the logs' tails and exits 1. The processes keep running; stop ends them by the pids
# start wrote to DIR/pids (nothing else). Each one's port: DIR/ports; logs: DIR/*.log. The environment
# passes through to the processes (SALVO_* settings); FORWARDED_ALLOW_IPS defaults to 127.0.0.1, the
# front's address here.
# docs/operations.md explains the topology; tests/topology/ run it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

action=${1:-}; [ $# -gt 0 ] && shift
port=8000; database_url=${DATABASE_URL:-sqlite:///$ROOT/var/topology.db}; redis_url=${REDIS_URL:-redis://127.0.0.1:6379/0}
sockets=2; dir=$ROOT/var/topology; timeout=${TOPOLOGY_START_TIMEOUT:-120}
while [ $# -gt 0 ]; do
  case $1 in
    --port) port=$2; shift 2 ;;
    --database-url) database_url=$2; shift 2 ;;
    --redis-url) redis_url=$2; shift 2 ;;
    --sockets) sockets=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) usage ;;
  esac
done

free_ports() {  # N ports nothing listens on now
  "$PY" -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# 0 when every URL answers 200 from a Salvo process (its X-Request-Id: nginx's own 502 page has none)
answer_all() {
  "$PY" -c 'import sys, urllib.request, urllib.error
def salvo(url):
    try:
        with urllib.request.urlopen(url, timeout=3) as r:
            return r.status == 200 and r.headers.get("x-request-id") is not None
    except urllib.error.HTTPError as e:  # a stream path over plain HTTP: the service answers it, not 200
        return e.code != 502 and e.code != 504 and e.headers.get("x-request-id") is not None
    except OSError:
        return False
sys.exit(0 if all(salvo(u) for u in sys.argv[1:]) else 1)' "$@"
}

stop_pids() {
  [ -f "$dir/pids" ] || return 0
  local name pid
  while read -r name pid; do  # nginx: SIGQUIT is its graceful stop; the service: SIGTERM (1012 to sockets)
    if kill -0 "$pid" 2>/dev/null; then
      if [ "$name" = nginx ]; then kill -QUIT "$pid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
    fi
  done < "$dir/pids"
  for _ in $(seq 150); do
    local alive=0
    while read -r name pid; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$dir/pids"
    [ $alive = 0 ] && break
    sleep 0.1
  done
  while read -r name pid; do kill -KILL "$pid" 2>/dev/null || true; done < "$dir/pids"
  rm -f "$dir/pids"
}

case $action in
  stop) stop_pids; exit 0 ;;
  start) ;;
  *) usage ;;
esac

[ -x "$NGINX" ] || { echo "topology: no nginx at $NGINX (Debian: apt-get install nginx)" >&2; exit 1; }
if [ -f "$dir/pids" ]; then echo "topology: $dir/pids exists: stop that topology first" >&2; exit 1; fi
mkdir -p "$dir"
read -r -a ports <<< "$(free_ports $((sockets + 1)))"
command_port=${ports[0]}; socket_ports=("${ports[@]:1}")
{ echo "front $port"; echo "commands $command_port"
  for i in "${!socket_ports[@]}"; do echo "sockets$((i + 1)) ${socket_ports[$i]}"; done; } > "$dir/ports"

export DATABASE_URL=$database_url REDIS_URL=$redis_url
export FORWARDED_ALLOW_IPS=${FORWARDED_ALLOW_IPS:-127.0.0.1}  # only the front may state a client's address
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
log_level=${SALVO_LOG_LEVEL:-info}
: > "$dir/pids"
# every service process at the same moment, as compose starts them
(cd "$ROOT" && exec "$PY" -m service serve --host 127.0.0.1 --port "$command_port" --log-level "$log_level" \
  > "$dir/commands.log" 2>&1) &
echo "commands $!" >> "$dir/pids"
for i in "${!socket_ports[@]}"; do
  (cd "$ROOT" && SALVO_REDIS_SUBSCRIBE=games exec "$PY" -m service serve --host 127.0.0.1 \
    --port "${socket_ports[$i]}" --log-level "$log_level" > "$dir/sockets$((i + 1)).log" 2>&1) &
  echo "sockets$((i + 1)) $!" >> "$dir/pids"
done

# docker/nginx.conf with this machine's addresses: one upstream server line per socket process (compose's
# DNS name answers with every replica's address), the listen port; nothing else changes
servers=""
for p in "${socket_ports[@]}"; do servers+="server 127.0.0.1:$p; "; done
site=$dir/nginx-site.conf
for needle in "server commands:8000;" "server sockets:8000;" "listen 80;"; do
  grep -qF "$needle" "$ROOT/docker/nginx.conf" || { echo "topology: docker/nginx.conf has no '$needle'" >&2; stop_pids; exit 1; }
done
sed -e "s|server commands:8000;|server 127.0.0.1:$command_port;|" -e "s|server sockets:8000;|$servers|" \
    -e "s|listen 80;|listen 127.0.0.1:$port;|" "$ROOT/docker/nginx.conf" > "$site"
# the main file: docker/nginx-main.conf's settings with paths under DIR (no root needed)
cat > "$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 16384; multi_accept on; }
http {
    access_log off;
    keepalive_timeout 65;
    client_body_temp_path $dir/nginx-body;
    proxy_temp_path $dir/nginx-proxy;
    fastcgi_temp_path $dir/nginx-fastcgi;
    uwsgi_temp_path $dir/nginx-uwsgi;
    scgi_temp_path $dir/nginx-scgi;
    include $site;
}
EOF
"$NGINX" -p "$dir" -c "$dir/nginx.conf" > "$dir/nginx.log" 2>&1 &
echo "nginx $!" >> "$dir/pids"

front=http://127.0.0.1:$port
direct=("http://127.0.0.1:$command_port/readyz")
for p in "${socket_ports[@]}"; do direct+=("http://127.0.0.1:$p/readyz"); done
through=("$front/readyz")  # the commands pool; then the sockets pool (a token-less stream path), once per server
for _ in "${socket_ports[@]}"; do through+=("$front/v1/games/g_0/stream"); done
deadline=$((SECONDS + timeout))
until answer_all "${direct[@]}" && answer_all "${through[@]}"; do
  while read -r name pid; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "topology: $name (pid $pid) exited; its log:" >&2
      tail -n 30 "$dir/$name.log" "$dir/nginx-error.log" 2>/dev/null >&2 || true
      stop_pids; exit 1
    fi
  done < "$dir/pids"
  if [ $SECONDS -ge $deadline ]; then
    echo "topology: not every process answered within ${timeout}s; logs in $dir" >&2
    stop_pids; exit 1
  fi
  sleep 0.2
done
echo "front (nginx) $front/ ; command process :$command_port ; socket processes :${socket_ports[*]} ; pids in $dir/pids ; logs in $dir"
