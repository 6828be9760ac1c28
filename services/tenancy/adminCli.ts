// Admin CLI for workspaces and API keys:
//   npm run admin -- create-workspace --name acme
//   npm run admin -- create-key --workspace <id> [--workspace <id2>] [--description text]
//   npm run admin -- link-key --key <key> --workspace <id>
//   npm run admin -- unlink-key --key <key> --workspace <id>
//   npm run admin -- issue-token --key <key> [--workspace <id>] [--ttl 1h]
//   npm run admin -- list
//
// issue-token signs with a key derived from SECRETS_ENCRYPTION_KEY, read as `npm start` reads it
// (the environment, else .local/dev-secrets-key), so its tokens are the ones the services check.
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../../platform/config.ts';
import { readDevSecret } from '../../platform/devSecrets.ts';
import { AppError } from '../../platform/errors.ts';
import { createLogger } from '../../platform/logger.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { ensureTopics } from '../../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS } from '../../schemas/topics.ts';
import { TenancyService } from './tenancyService.ts';
import { hashApiKey } from './apiKeys.ts';
import { DEFAULT_TOKEN_TTL, parseTokenTtl } from './bearerTokens.ts';

const usage = `usage: npm run admin -- <command> [options]
  create-workspace --name <name>
  create-key --workspace <id> [--workspace <id>...] [--description <text>]
  link-key --key <api key> --workspace <id>
  unlink-key --key <api key> --workspace <id>
  issue-token --key <api key> [--workspace <id>] [--ttl <90s|30m|1h|7d>]   (default 1h, at most 7d)
  list`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      workspace: { type: 'string', multiple: true },
      description: { type: 'string' },
      key: { type: 'string' },
      ttl: { type: 'string' },
    },
  });
  const command = positionals[0];
  if (!command) throw new Error(usage);
  const config = loadConfig({ ...process.env, SECRETS_ENCRYPTION_KEY: readDevSecret('SECRETS_ENCRYPTION_KEY')?.value });
  // Checked before anything reaches Kafka.
  const ttlSeconds = command === 'issue-token' ? tokenLifetime(values, config) : 0;
  await ensureTopics(config, TOPIC_DECLARATIONS);
  const log = new EventLog(config, 'admin-cli');
  const tenancy = new TenancyService(config, log, createLogger('admin-cli', 'warn'));
  try {
    await tenancy.start();
    switch (command) {
      case 'create-workspace': {
        if (!values.name) throw new Error('create-workspace needs --name');
        const id = await tenancy.createWorkspace(values.name);
        console.log(JSON.stringify({ workspace_id: id, name: values.name }));
        break;
      }
      case 'create-key': {
        const workspaces = values.workspace ?? [];
        if (workspaces.length === 0) throw new Error('create-key needs at least one --workspace');
        for (const w of workspaces)
          if (!tenancy.state.workspaces.has(w)) throw new Error(`workspace ${w} does not exist`);
        const key = await tenancy.issueKey(workspaces, values.description ?? 'created with the admin CLI');
        console.log(JSON.stringify({ api_key: key, workspace_ids: workspaces }));
        break;
      }
      case 'link-key': {
        if (!values.key || !values.workspace?.[0]) throw new Error('link-key needs --key and --workspace');
        await tenancy.linkKey(values.key, values.workspace[0]);
        console.log(JSON.stringify({ linked: values.workspace[0] }));
        break;
      }
      case 'unlink-key': {
        if (!values.key || !values.workspace?.[0]) throw new Error('unlink-key needs --key and --workspace');
        const record = tenancy.state.keys.get(hashApiKey(values.key));
        if (!record) throw new Error('the key is not known');
        if (!record.workspaceIds.has(values.workspace[0]))
          throw new Error(`the key is not linked to workspace ${values.workspace[0]}`);
        await tenancy.unlinkKey(values.key, values.workspace[0]);
        console.log(
          JSON.stringify({
            unlinked: values.workspace[0],
            workspace_ids: [...record.workspaceIds].filter((w) => w !== values.workspace![0]),
          }),
        );
        break;
      }
      case 'issue-token': {
        // The same refusals as the API gives the key (unknown, several workspaces and none named, a workspace it lacks).
        const issued = await tenancy.issueToken(values.key!, values.workspace?.[0], ttlSeconds).catch((err: Error) => {
          const which = err instanceof AppError && err.code === 'TENANT_ID_REQUIRED';
          const why = which ? 'the key is linked to several workspaces: name one with --workspace' : err.message;
          throw new Error(`no token: ${why}`);
        });
        const { token, workspaceId, expiresAt } = issued;
        console.log(JSON.stringify({ token, workspace_id: workspaceId, expires_at: expiresAt.toISOString() }));
        break;
      }
      case 'list': {
        const workspaces = [...tenancy.state.workspaces.values()];
        const keys = [...tenancy.state.keys.values()].map((k) => ({
          prefix: k.keyPrefix,
          description: k.description,
          workspace_ids: [...k.workspaceIds],
        }));
        console.log(JSON.stringify({ workspaces, keys }, null, 2));
        break;
      }
      default:
        throw new Error(usage);
    }
  } finally {
    await tenancy.close();
    await log.close();
  }
}

/** issue-token's arguments, checked: the token's lifetime in seconds. */
function tokenLifetime(values: { key?: string; workspace?: string[]; ttl?: string }, config: Config): number {
  if (!values.key) throw new Error('issue-token needs --key');
  if ((values.workspace?.length ?? 0) > 1)
    throw new Error('a token acts in one workspace: give at most one --workspace');
  if (!config.SECRETS_ENCRYPTION_KEY)
    throw new Error(
      "issue-token needs SECRETS_ENCRYPTION_KEY, the services' (or .local/dev-secrets-key, which npm start writes)",
    );
  return parseTokenTtl(values.ttl ?? DEFAULT_TOKEN_TTL);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
