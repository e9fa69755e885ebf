# syntax=docker/dockerfile:1

# Build stage: compiles TypeScript and better-sqlite3's native module.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the native module is built
# by the rebuild below (from a prebuilt binary when one matches, else from source with the tools above).
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build \
 && npm prune --omit=dev

# Runtime stage: only the compiled service and its production dependencies, as a non-root user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    MERGEQ_PORT=3000 \
    MERGEQ_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
# The web page's files (HTML, CSS, JavaScript; no build step), served at /ui/.
COPY ui ./ui
# The image's `node` user (uid 1000) owns the SQLite folder; MongoDB deployments leave it empty.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MERGEQ_PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/cli/main.js", "serve"]
