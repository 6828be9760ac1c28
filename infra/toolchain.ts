// Commands the install steps rely on (java, mvn, go). Missing ones that Debian packages
// well are installed; Go must be >= the version MinIO's go.mod asks for, which Debian's
// golang package is not, so a missing Go is reported instead.
import { join } from 'node:path';
import { aptInstall } from './apt.ts';
import { capture } from './commands.ts';
import { logsDir } from './config.ts';

export type RequiredCommand = { command: string; aptPackage?: string; hint?: string };

export async function commandExists(command: string): Promise<boolean> {
  const result = await capture('sh', ['-c', `command -v ${command}`]).catch(() => undefined);
  return result?.code === 0;
}

export async function ensureCommands(required: RequiredCommand[]): Promise<void> {
  const missing: RequiredCommand[] = [];
  for (const entry of required) if (!(await commandExists(entry.command))) missing.push(entry);
  const unavailable = missing.filter((entry) => !entry.aptPackage);
  if (unavailable.length > 0) {
    throw new Error(
      unavailable.map((entry) => `${entry.command} not found on PATH${entry.hint ? `: ${entry.hint}` : ''}`).join('\n'),
    );
  }
  if (missing.length > 0) {
    await aptInstall(
      missing.map((entry) => entry.aptPackage as string),
      join(logsDir, `install-${missing.map((entry) => entry.command).join('-')}.log`),
    );
  }
}

/**
 * bubblewrap, the local deployer's sandbox (services/deployments/deployer/sandbox.ts): installed
 * when missing and this process may (root). Elsewhere the deployer says what is missing when it
 * builds a revision, and the rest of the stack runs without it.
 */
export async function ensureDeployerSandbox(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || (await commandExists('bwrap'))) return;
  await aptInstall(['bubblewrap'], join(logsDir, 'install-bubblewrap.log'));
}
