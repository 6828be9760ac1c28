// TenancyService without SECRETS_ENCRYPTION_KEY: no bearer token is issued or taken, and saying
// so is a 503 the operator can act on, not a 401 the caller cannot (the rest of the service is
// covered through the APIs: test/services/processes/controlPlaneApp.test.ts, adminCli.test.ts).
import { expect, inject, test } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import { EventLog } from '../../../platform/kafka/eventLog.ts';
import { createLogger } from '../../../platform/logger.ts';
import { TenancyService } from '../../../services/tenancy/tenancyService.ts';

test('without SECRETS_ENCRYPTION_KEY, issuing or checking a token is NOT_CONFIGURED, naming the setting', async () => {
  const config = loadConfig({ ...inject('tracingEnv'), SECRETS_ENCRYPTION_KEY: undefined });
  const log = new EventLog(config, 'test-tenancy');
  const tenancy = new TenancyService(config, log, createLogger('test-tenancy', 'silent'));
  try {
    const notConfigured = {
      code: 'NOT_CONFIGURED',
      statusCode: 503,
      message: expect.stringContaining('SECRETS_ENCRYPTION_KEY'),
    };
    await expect(tenancy.authenticateBearer('a.b.c', undefined)).rejects.toMatchObject(notConfigured);
    await expect(tenancy.issueToken('lsk_any', undefined, 60)).rejects.toMatchObject(notConfigured);
  } finally {
    await tenancy.close();
    await log.close();
  }
});
