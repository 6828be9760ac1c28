# The services (tracing API, control plane, agent server, chat app) in one image.
# Infrastructure comes from docker-compose.yml (or any Kafka, ClickHouse and S3 named by
# the KAFKA_BROKERS, CLICKHOUSE_URL, S3_* variables).

# The browser pages (apps/, the chat app's page) are built with Vite, a devDependency: in a stage
# of their own, so the image keeps only runtime dependencies and the built files.
FROM node:24-slim AS pages
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY apps ./apps
RUN NODE_ENV=production node node_modules/vite/bin/vite.js build --config apps/vite.config.ts --logLevel warn

FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app
# bubblewrap: the control plane's deployer runs each deployment in a sandbox of its own
# (docs/local-deployer.md); as a user other than root it needs user namespaces in the container.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/* \
  && chown node:node /app
USER node

# Dependencies first, so editing sources does not reinstall them. Runtime dependencies only:
# the image's own Node 24 runs the services, so the `node` package (how `npm start` gets Node
# 24 on a bare machine) and the test tool chain are devDependencies.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error

COPY --chown=node:node . .
COPY --from=pages --chown=node:node /build/apps/dist ./apps/dist

# Node 24 runs the TypeScript sources directly (type stripping): no build step for the server.
# Tracing API 1984, control plane 1985, agent server 2024, example chat app 3000.
EXPOSE 1984 1985 2024 3000
CMD ["node", "services/main.ts"]
