#!/usr/bin/env bash
# Horizontal scale, shown on one machine: two stateless replicas of the HTTP server behind nginx
# (round-robin), sharing one standalone sandbox as their PostHog, driven by several concurrent
# clients that each use their own PostHog key. Checks that every call succeeded, that nginx sent
# calls to both replicas, that each key reached the sandbox only on its own user's calls, and
# that both replicas stop cleanly on SIGTERM. Everything listens on 127.0.0.1 and stops by itself.
#
#   bash scripts/two-replicas.sh [clients] [calls per client]     (default 8 x 150)
#
# Needs nginx (Debian: apt-get install -y nginx), which it runs in the foreground with its own
# configuration in a temporary folder (not the system service), and curl. Builds the project first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="${1:-8}"
calls="${2:-150}"
nginx_bin="$(command -v nginx || true)"
[[ -x "$nginx_bin" ]] || nginx_bin=/usr/sbin/nginx
if [[ ! -x "$nginx_bin" ]]; then
  echo "two-replicas: nginx not found; install it (Debian: apt-get install -y nginx)." >&2
  exit 1
fi

cd "$root"
npm run build --silent

work="$(mktemp -d)"
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for a line matching $2 in file $1 and prints the first URL in it.
url_from() {
  local file="$1" pattern="$2"
  for _ in $(seq 1 100); do
    if grep -q "$pattern" "$file" 2>/dev/null; then
      grep -o "$pattern" "$file" | head -1 | grep -o 'http://[^ ]*'
      return 0
    fi
    sleep 0.1
  done
  echo "two-replicas: no '$pattern' in $file:" >&2
  cat "$file" >&2
  return 1
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

node scripts/sandbox.mjs --any-key --log "$work/sandbox-requests.jsonl" >"$work/sandbox.out" 2>&1 &
sandbox_pid=$!
pids+=("$sandbox_pid")
sandbox_url="$(url_from "$work/sandbox.out" 'sandbox: http://[^ ]*')"

lb_port="$(free_port)"
replica_ports=()
replica_pids=()
for n in 1 2; do
  # Per-user keys (no POSTHOG_PERSONAL_API_KEY); clients reach the replicas by nginx's address.
  POSTHOG_HOST="$sandbox_url" MCP_ALLOWED_HOSTS="127.0.0.1:$lb_port,localhost:$lb_port" \
    node dist/cli.js --transport http --port 0 2>"$work/replica$n.log" &
  replica_pids+=($!)
  pids+=($!)
  url="$(url_from "$work/replica$n.log" 'Streamable HTTP at http://[^ ]*')"
  port="${url##*:}"
  replica_ports+=("${port%%/*}")
done

mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
  log_format replicas '\$upstream_addr \$status \$request_method \$request_uri';
  access_log $work/nginx/access.log replicas;
  client_body_temp_path $work/nginx/client_body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  upstream mcp_replicas {
    # Round-robin (nginx's default); no affinity needed: the replicas keep no state.
    server 127.0.0.1:${replica_ports[0]};
    server 127.0.0.1:${replica_ports[1]};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$lb_port;
    location = /healthz { proxy_pass http://mcp_replicas; }
    location /mcp {
      proxy_pass http://mcp_replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The replicas check Host (DNS rebinding): pass the one the client used.
      proxy_set_header Host \$http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
    }
  }
}
CONF
"$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>"$work/nginx/stderr.log" &
pids+=($!)
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$lb_port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
echo "two-replicas: sandbox $sandbox_url; replicas on 127.0.0.1:${replica_ports[0]} and :${replica_ports[1]}; nginx on 127.0.0.1:$lb_port"

status=0
node scripts/drive-replicas.mjs --url "http://127.0.0.1:$lb_port/mcp" --clients "$clients" --calls "$calls" || status=1

echo "two-replicas: MCP POSTs per replica (nginx access log, status counts):"
for port in "${replica_ports[@]}"; do
  hits="$(grep -c "^127.0.0.1:$port 200 POST /mcp" "$work/nginx/access.log" || true)"
  others="$(grep "^127.0.0.1:$port " "$work/nginx/access.log" | grep -v " 200 POST /mcp" | awk '{print $2" "$3}' | sort | uniq -c | tr -s ' ' | paste -sd, - || true)"
  echo "  replica 127.0.0.1:$port: $hits POST /mcp answered 200${others:+; other requests:$others}"
  [[ "$hits" -gt 0 ]] || status=1
done
bad="$(awk '$2 >= 500 || $2 == 429 || $2 == 403 || $2 == 401' "$work/nginx/access.log" | wc -l)"
echo "  requests answered 401/403/429/5xx: $bad"
[[ "$bad" -eq 0 ]] || status=1

for n in 0 1; do
  kill -TERM "${replica_pids[$n]}"
  code=0
  wait "${replica_pids[$n]}" || code=$?
  echo "two-replicas: replica $((n + 1)) exited $code after SIGTERM ($(tail -1 "$work/replica$((n + 1)).log" | sed 's/^posthog-replay-mcp: //'))"
  [[ "$code" -eq 0 ]] || status=1
done
kill -TERM "$sandbox_pid"
wait "$sandbox_pid" || true
node scripts/drive-replicas.mjs --check-log "$work/sandbox-requests.jsonl" --clients "$clients" || status=1

if grep -q 'phx_replica_demo_user' "$work"/replica*.log; then
  echo "two-replicas: a key appeared in a replica's log" >&2
  status=1
fi
echo "two-replicas: $([[ $status -eq 0 ]] && echo OK || echo FAILED)"
exit "$status"
