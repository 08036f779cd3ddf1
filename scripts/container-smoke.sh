#!/usr/bin/env bash
# The Dockerfile's steps without docker (none on the CI machine): in a temporary directory, the
# build stage (npm ci, build, runtime dependencies, prune) on the files the Dockerfile copies, then
# the run stage (package.json, node_modules and dist/ only) with `node server/dist/host/cli.js serve`,
# probed as an operator would: /healthz, /readyz, a SCIM POST and GET with the printed demo token,
# SIGTERM, exit code 0. Keep the commands in step with the Dockerfile.
#
#   scripts/container-smoke.sh             # exactly the Dockerfile's commands (npm ci from the lockfile)
#   SMOKE_REUSE_NODE_MODULES=1 scripts/…   # copies this checkout's node_modules instead of npm ci
#                                          # (npm test does: fast, and no registry needed)
#   SMOKE_REUSE_BUILD=1 scripts/…          # copies this checkout's dist/ and server/dist/ (built by
#                                          # the package tests) instead of npm run build
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/scimkit-container-smoke-XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
say() { echo "== container-smoke: $*"; }
fail() {
  echo "container-smoke: FAILED: $*" >&2
  [[ -f "$work/server.log" ]] && { echo "--- server output:" >&2; cat "$work/server.log" >&2; }
  exit 1
}

# --- build stage (WORKDIR /app) ------------------------------------------------------------------
build="$work/build"
mkdir -p "$build"
cd "$build"
# COPY package.json package-lock.json ./ ; COPY server/package.json ./server/
cp "$repo/package.json" "$repo/package-lock.json" .
mkdir -p server
cp "$repo/server/package.json" server/
# RUN npm ci --no-audit --no-fund
if [[ "${SMOKE_REUSE_NODE_MODULES:-}" == "1" ]]; then
  say "node_modules copied from $repo (instead of npm ci)"
  mkdir node_modules
  cp -a "$repo/node_modules/." node_modules/
else
  say "npm ci"
  npm ci --no-audit --no-fund --prefer-offline
fi
# COPY tsconfig.json tsconfig.build.json ./ ; COPY scripts ./scripts ; COPY src ./src ; COPY server ./server
cp "$repo/tsconfig.json" "$repo/tsconfig.build.json" .
cp -a "$repo/scripts" "$repo/src" .
(cd "$repo/server" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$build/server")
# RUN npm run build --workspace=@scimkit/server
if [[ "${SMOKE_REUSE_BUILD:-}" == "1" ]]; then
  say "dist/ and server/dist/ copied from $repo (instead of npm run build)"
  cp -a "$repo/dist" dist
  cp -a "$repo/server/dist" server/dist
else
  say "npm run build --workspace=@scimkit/server"
  npm run build --silent --workspace=@scimkit/server
fi
# RUN npm prune --omit=dev --no-audit --no-fund
npm prune --omit=dev --no-audit --no-fund

# --- run stage (COPY --from=build package.json, node_modules, dist) ------------------------------
app="$work/app"
mkdir -p "$app" "$work/data"
cp "$build/package.json" "$app/"
cp -a "$build/node_modules" "$build/dist" "$app/"
mkdir -p "$app/server"
cp "$build/server/package.json" "$app/server/"
cp -a "$build/server/dist" "$app/server/"
rm -rf "$build"
cd "$app"
port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
base="http://127.0.0.1:$port"
say "node server/dist/host/cli.js serve on port $port"
# ENV NODE_ENV=production SCIMKIT_SHUTDOWN_GRACE_MS=8000 PORT=8080 DATABASE_URL=sqlite:/data/scimkit.db
# The run stage's environment only: nothing of this shell's SCIMKIT_* settings leaks in.
env -i PATH="$PATH" HOME="$work" NODE_ENV=production SCIMKIT_SHUTDOWN_GRACE_MS=8000 PORT="$port" DATABASE_URL="sqlite:$work/data/scimkit.db" \
  node server/dist/host/cli.js serve >"$work/server.log" 2>&1 &
server_pid=$!

token=""
for _ in $(seq 1 300); do
  kill -0 "$server_pid" 2>/dev/null || fail "the host exited during start"
  token="$(sed -n 's/^Bearer token for demo (shown once): \(.*\)$/\1/p' "$work/server.log")"
  [[ -n "$token" ]] && grep -q '^Demo' "$work/server.log" && break
  sleep 0.1
done
[[ -n "$token" ]] || fail "no demo token printed within 30 s"

# HEALTHCHECK: the Dockerfile's own command.
node -e "fetch('$base/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" || fail "HEALTHCHECK command failed"
[[ "$(curl -fsS "$base/healthz")" == '{"status":"ok"}' ]] || fail "/healthz"
[[ "$(curl -fsS "$base/readyz")" == '{"status":"ok"}' ]] || fail "/readyz"
say "/healthz and /readyz answer 200"

scim="$base/scim/Organizations/demo/v2"
created="$(curl -fsS -X POST "$scim/Users" -H "Authorization: Bearer $token" -H "Content-Type: application/scim+json" \
  -d '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"smoke@example.com","name":{"givenName":"Smoke","familyName":"Test"},"emails":[{"value":"smoke@example.com","type":"work"}]}')" ||
  fail "SCIM POST /Users"
id="$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$created")"
fetched="$(curl -fsS "$scim/Users/$id" -H "Authorization: Bearer $token")" || fail "SCIM GET /Users/$id"
node -e 'const u = JSON.parse(process.argv[1]); if (u.userName !== "smoke@example.com") process.exit(1)' "$fetched" || fail "GET returned $fetched"
say "SCIM POST and GET of user $id"

kill -TERM "$server_pid"
set +e
wait "$server_pid"
code=$?
set -e
server_pid=""
[[ "$code" == "0" ]] || fail "exit code $code after SIGTERM"
grep -q '^Store closed$' "$work/server.log" || fail "no graceful shutdown"
say "SIGTERM: graceful shutdown, exit code 0"
