// `npm run infra:up|down|status`: the local Kafka, ClickHouse, MinIO and PostgreSQL.
//   up      install what is missing, start what is not running, print the endpoints (as env lines;
//           never the S3 secret, which would end up in every CI log)
//   down    stop the servers `up` started (by pid), nothing else
//   status  for each part: running or not, our pid, endpoint
import { seconds } from './commands.ts';
import { ensureStackUp, stackStatus, stopStack } from './stack.ts';
import { defaultS3SecretAccessKey } from './config.ts';

async function up(): Promise<void> {
  const started = Date.now();
  const endpoints = await ensureStackUp();
  process.stderr.write(`[infra] stack up in ${seconds(started)}\n`);
  process.stdout.write(
    [
      `KAFKA_BROKERS=${endpoints.kafkaBrokers}`,
      `CLICKHOUSE_URL=${endpoints.clickhouseUrl}`,
      `S3_ENDPOINT=${endpoints.s3Endpoint}`,
      `S3_ACCESS_KEY_ID=${endpoints.s3AccessKeyId}`,
      `# S3_SECRET_ACCESS_KEY is not printed: ${endpoints.s3SecretAccessKey === defaultS3SecretAccessKey ? 'the dev default (docs/configuration.md)' : 'the one set in your environment'}`,
      `POSTGRES_URL=${endpoints.postgresUrl}`,
    ].join('\n') + '\n',
  );
}

async function down(): Promise<void> {
  for (const report of await stopStack()) {
    const what = report.stopped
      ? `stopped pid ${report.pid}${report.killed ? ' (SIGKILL after the grace period)' : ''}`
      : 'not started by infra up; left alone';
    process.stdout.write(`${report.name.padEnd(11)} ${what}\n`);
  }
}

async function status(): Promise<void> {
  for (const entry of await stackStatus()) {
    const state = entry.running ? 'running' : entry.pid !== undefined ? 'starting' : 'not running';
    const owner = entry.pid !== undefined ? `pid ${entry.pid}` : entry.running ? 'not ours' : '';
    process.stdout.write(`${entry.name.padEnd(11)} ${state.padEnd(12)} ${owner.padEnd(10)} ${entry.endpoint}\n`);
  }
}

const commands: Record<string, () => Promise<void>> = { up, down, status };
const name = process.argv[2] ?? '';
const command = commands[name];
if (!command) {
  process.stderr.write('usage: node infra/cli.ts up|down|status\n');
  process.exit(2);
}
try {
  await command();
} catch (error) {
  process.stderr.write(`[infra] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
