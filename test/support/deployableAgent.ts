// examples/deployable-agent as the control plane's tests and benchmark deploy it: a git
// repository of its own (tagged v1), and the pids of a deployed revision's agent servers.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isRunning, repoRoot } from './serviceProcess.ts';

export interface ExampleRepo {
  /** The working tree. */
  dir: string;
  /** `file://` URL of it: the control plane's repo_url. */
  url: string;
  /** Runs git in it (as a test user); its output, trimmed. */
  git(...args: string[]): string;
}

/** Copies the deployable example to `dir` and makes it a git repository with one commit, tagged v1. */
export function deployableAgentRepo(dir: string): ExampleRepo {
  cpSync(join(repoRoot, 'examples/deployable-agent'), dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
      cwd: dir,
      stdio: 'pipe',
    })
      .toString()
      .trim();
  git('init', '--quiet', '--initial-branch=main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'the deployable example');
  git('tag', 'v1');
  return { dir, url: pathToFileURL(dir).href, git };
}

/**
 * The pids of a revision's running agent servers (the deployer sets LANGSMITH_HOST_REVISION_ID in
 * each one's environment): the Node processes, not the bubblewrap processes of their sandboxes.
 */
export function serverPids(revisionId: string): number[] {
  const pids: number[] = [];
  const node = realpathSync(process.execPath);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      const isNode = readlinkSync(`/proc/${entry}/exe`) === node;
      if (isNode && environ.includes(`LANGSMITH_HOST_REVISION_ID=${revisionId}`) && isRunning(Number(entry)))
        pids.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}
