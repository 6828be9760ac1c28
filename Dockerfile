# The services (tracing API, control plane, agent server, chat app) in one image.
# Infrastructure comes from docker-compose.yml (or any Kafka, ClickHouse and S3 named by
# the KAFKA_BROKERS, CLICKHOUSE_URL, S3_* variables).
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app
RUN chown node:node /app
USER node

# Dependencies first, so editing sources does not reinstall them. Runtime dependencies only:
# the image's own Node 24 runs the services, so the `node` package (how `npm start` gets Node
# 24 on a bare machine) and the test tool chain are devDependencies.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error

COPY --chown=node:node . .

# Node 24 runs the TypeScript sources directly (type stripping): no build step.
# Tracing API 1984, control plane 1985, agent server 2024, example chat app 3000.
EXPOSE 1984 1985 2024 3000
CMD ["node", "services/main.ts"]
