# The services (tracing API, control plane, agent server, chat app) in one image.
# Infrastructure comes from docker-compose.yml (or any Kafka, ClickHouse and S3 named by
# the KAFKA_BROKERS, CLICKHOUSE_URL, S3_* variables).

# The browser pages (apps/, the chat app's page) are built with Vite, a devDependency: in a stage
# of their own, so the image keeps only runtime dependencies and the built files.
# NODE_IMAGE: where the registry is out of reach, a local image of the same contract (npm run
# test:compose builds localhost/node:24-slim, infra/compose/standins/node).
ARG NODE_IMAGE=node:24-slim
FROM ${NODE_IMAGE} AS pages
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY apps ./apps
RUN NODE_ENV=production node node_modules/vite/bin/vite.js build --config apps/vite.config.ts --logLevel warn

FROM ${NODE_IMAGE}

ENV NODE_ENV=production
WORKDIR /app
# bubblewrap: the control plane's deployer runs each deployment in a sandbox of its own
# (docs/local-deployer.md); as a user other than root it needs user namespaces in the container.
# git and ca-certificates: it fetches a deployment's source from its repository (source "github").
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap ca-certificates git && rm -rf /var/lib/apt/lists/* \
  && chown node:node /app
USER node

# Dependencies first, so editing sources does not reinstall them. Runtime dependencies only:
# the image's own Node 24 runs the services, so the `node` package (how `npm start` gets Node
# 24 on a bare machine) and the test tool chain are devDependencies.
COPY --chown=node:node package.json package-lock.json ./
# Then what no service reads at run time goes, in the same layer: npm's download cache, source
# maps and type declarations (TypeScript's and ts-morph's own libraries aside).
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
  && npm cache clean --force \
  && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) \
    -not -path '*/typescript/*' -not -path '*/@ts-morph/*' -delete

COPY --chown=node:node . .
COPY --from=pages --chown=node:node /build/apps/dist ./apps/dist

# Node 24 runs the TypeScript sources directly (type stripping): no build step for the server.
# Tracing API 1984, control plane 1985, agent server 2024, example chat app 3000.
EXPOSE 1984 1985 2024 3000
CMD ["node", "services/main.ts"]
