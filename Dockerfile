# The scimkit host server as a container: `docker build -t scimkit .`, then
#   docker run -p 8080:8080 -v scimkit-data:/data scimkit
# Settings come from the environment (server/docs/configuration.md, "Host server environment");
# running it in production: server/docs/running-in-production.md. scripts/container-smoke.sh runs these
# same steps without docker, in npm test.

# --- build: compile the package, then keep only what the host runs on -------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source where no prebuilt binary matches the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# Two packages (npm workspaces): the library at the root, the service in server/.
COPY package.json package-lock.json ./
COPY server/package.json ./server/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The service, with the operator console it builds into server/dist/console and serves at /console.
COPY server ./server
RUN npm run build --workspace=@scimkit/server
# Express, both database drivers and ajv are the service's dependencies: the prune keeps them.
RUN npm prune --omit=dev --no-audit --no-fund

# --- run: the compiled host, as a non-root user, its data in a volume --------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
  SCIMKIT_SHUTDOWN_GRACE_MS=8000 \
  PORT=8080 \
  DATABASE_URL=sqlite:/data/scimkit.db
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/server/package.json ./server/package.json
COPY --from=build /app/server/dist ./server/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness on /healthz; the image has no curl, so Node asks. /readyz (the database answers, not
# shutting down) is for a load balancer or Kubernetes' readinessProbe.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# node itself is PID 1 (exec form, no shell, no npm): it receives the runtime's SIGTERM and
# shuts down gracefully within SCIMKIT_SHUTDOWN_GRACE_MS (8 s here: inside `docker stop`'s 10 s).
CMD ["node", "server/dist/host/cli.js", "serve"]
