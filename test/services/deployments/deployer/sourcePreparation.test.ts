// The build step alone, with real git, tar, shells and object store: the ref forms the control
// plane sends (branch, refs/tags/…, a commit id), a tarball uploaded as the CLIs upload it, a
// config path that leads out of the source, a graph file the source lacks, an upload that never
// came, and an install that fails: each a BuildError that names what to fix.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BlobStore } from '../../../../platform/blobStore.ts';
import { loadConfig } from '../../../../platform/config.ts';
import {
  BuildError,
  branchOrTagName,
  checkConfig,
  fetchSource,
  installPackages,
} from '../../../../services/deployments/deployer/sourcePreparation.ts';
import { provideInfra } from '../../../support/infra.ts';
import { isRunning, repoRoot, waitFor } from '../../../support/serviceProcess.ts';
import { makeSourceTarball, uploadLikeTheCli } from '../../../support/sourceTarball.ts';

const scratch = mkdtempSync(join(tmpdir(), 'source-preparation-test-'));
const limits = { fetchTimeoutMs: 60_000, installTimeoutMs: 60_000 };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd, stdio: 'pipe' })
    .toString()
    .trim();

let repo: string;
let firstCommit: string;
beforeAll(() => {
  repo = join(scratch, 'repo');
  cpSync(join(repoRoot, 'examples/deployable-agent'), repo, { recursive: true });
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'first');
  firstCommit = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'tag', 'v1');
  writeFileSync(join(repo, 'SECOND'), 'second commit\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'second');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let serial = 0;
const freshDir = () => join(scratch, `revision-${++serial}`);

describe('a git source', () => {
  test('the ref forms of the control plane: a branch, refs/tags/…, and a full commit id (a path as URL)', async () => {
    expect(branchOrTagName('refs/tags/v1.0.0')).toBe('v1.0.0');
    expect(branchOrTagName('refs/heads/main')).toBe('main');
    expect(branchOrTagName('main')).toBe('main');

    const branch = await fetchSource(
      { kind: 'git', repoUrl: repo, ref: 'main', configPath: 'langgraph.json' },
      freshDir(),
      limits,
    );
    expect(existsSync(join(branch.sourceDir, 'SECOND'))).toBe(true);
    const tag = await fetchSource(
      { kind: 'git', repoUrl: repo, ref: 'refs/tags/v1', configPath: 'langgraph.json' },
      freshDir(),
      limits,
    );
    expect(tag.commitSha).toBe(firstCommit);
    expect(existsSync(join(tag.sourceDir, 'SECOND'))).toBe(false);
    const sha = await fetchSource(
      { kind: 'git', repoUrl: `file://${repo}`, ref: firstCommit, configPath: 'langgraph.json' },
      freshDir(),
      limits,
    );
    expect(sha.commitSha).toBe(firstCommit);
    expect(readFileSync(join(sha.sourceDir, 'langgraph.json'), 'utf8')).toContain('greeter');
  });

  test('a URL that looks like an option is refused before git sees it', async () => {
    const fetching = fetchSource(
      { kind: 'git', repoUrl: '--upload-pack=touch /tmp/x', ref: 'main', configPath: 'langgraph.json' },
      freshDir(),
      limits,
    );
    await expect(fetching).rejects.toThrow(BuildError);
    await expect(fetching).rejects.toThrow(/starts with "-"/);
  });

  test('a repository that does not exist is a BuildError naming it', async () => {
    const missing = join(scratch, 'nowhere');
    await expect(
      fetchSource({ kind: 'git', repoUrl: missing, ref: 'main', configPath: 'langgraph.json' }, freshDir(), limits),
    ).rejects.toThrow(new RegExp(`cannot fetch ${missing} at ref "main"`));
  });
});

describe('an uploaded source (internal_source)', () => {
  let objects: BlobStore;
  // Where upload URLs may put (the upload user's only right): <workspace>/deployment-sources/…
  const prefix = `${randomUUID()}/deployment-sources/${randomUUID()}`;
  beforeAll(async () => {
    const infra = await provideInfra();
    objects = new BlobStore(
      loadConfig({
        S3_ENDPOINT: infra.s3Endpoint,
        S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
        S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
      }),
    );
    await objects.ensureBucket();
  });
  afterAll(() => objects?.close());

  const upload = async (key: string, archive: string) =>
    expect(await uploadLikeTheCli(await objects.presignedPutUrl(key, 60), archive)).toBe(200);

  test('a tarball made and PUT as the CLIs do is extracted as the source, and its download removed', async () => {
    const archive = join(scratch, 'source.tar.gz');
    makeSourceTarball(repo, archive);
    const key = `${prefix}/source.tar.gz`;
    await upload(key, archive);
    const dir = freshDir();
    const { sourceDir } = await fetchSource(
      { kind: 'upload', objectPath: key, configPath: 'langgraph.json' },
      dir,
      limits,
      undefined,
      objects,
    );
    expect(checkConfig(sourceDir, 'langgraph.json').config.graphs.map((g) => g.graphId)).toEqual(['greeter']);
    expect(existsSync(join(sourceDir, 'SECOND'))).toBe(true);
    expect(existsSync(join(sourceDir, '.git'))).toBe(false);
    expect(existsSync(`${sourceDir}.tar.gz`)).toBe(false);
  });

  test('an upload that never came is a BuildError naming its path and how to upload it', async () => {
    const key = `${prefix}/never.tar.gz`;
    const fetching = fetchSource({ kind: 'upload', objectPath: key }, freshDir(), limits, undefined, objects);
    await expect(fetching).rejects.toThrow(BuildError);
    await expect(fetching).rejects.toThrow(`no source was uploaded at ${key}`);
    await expect(fetching).rejects.toThrow(
      /POST \/v2\/deployments\/\{id\}\/upload-url, PUT the .tar.gz to upload_url, then PATCH/,
    );
  });

  test('an upload that is not a .tar.gz is a BuildError naming it', async () => {
    const key = `${prefix}/not-a-tarball.tar.gz`;
    const junk = join(scratch, 'junk.tar.gz');
    writeFileSync(junk, randomBytes(1024));
    await upload(key, junk);
    await expect(
      fetchSource({ kind: 'upload', objectPath: key }, freshDir(), limits, undefined, objects),
    ).rejects.toThrow(`cannot extract the source tarball uploaded at ${key} (a .tar.gz is expected)`);
  });
});

describe('the config', () => {
  test('a config path that leads outside the source is refused', () => {
    expect(() => checkConfig(repo, '../elsewhere/langgraph.json')).toThrow(/leads outside the source/);
  });

  test('a missing config names the path it looked for', () => {
    expect(() => checkConfig(repo, 'agents/langgraph.json')).toThrow(/the source has no agents\/langgraph.json/);
  });

  test('a graph whose file the source lacks is named', () => {
    const dir = join(scratch, 'missing-graph');
    mkdirSync(dir);
    writeFileSync(join(dir, 'langgraph.json'), JSON.stringify({ graphs: { lost: './lost.ts:graph' } }));
    expect(() => checkConfig(dir, 'langgraph.json')).toThrow(
      'langgraph.json: graph "lost" names lost.ts, which is not in the source',
    );
  });
});

describe('the install', () => {
  const env = { PATH: process.env.PATH ?? '' };

  test('a source without package.json and no install command installs nothing', async () => {
    expect(await installPackages(repo, { env, timeoutMs: 10_000 })).toBe(false);
  });

  test('a source with a package.json gets npm install by default', async () => {
    const dir = join(scratch, 'npm-install');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent', version: '1.0.0', private: true }));
    expect(
      await installPackages(dir, {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeoutMs: 120_000,
      }),
    ).toBe(true);
    expect(existsSync(join(dir, 'package-lock.json'))).toBe(true);
  });

  test("the deployment's install command runs at the source's root", async () => {
    const dir = join(scratch, 'install-ok');
    mkdirSync(dir);
    expect(await installPackages(dir, { installCommand: 'echo installed > marker', env, timeoutMs: 10_000 })).toBe(
      true,
    );
    expect(readFileSync(join(dir, 'marker'), 'utf8')).toBe('installed\n');
  });

  test('a failing install is a BuildError with the command and its last output', async () => {
    const dir = join(scratch, 'install-fails');
    mkdirSync(dir);
    const installing = installPackages(dir, {
      installCommand: 'echo "E404 no such package: left-padd" >&2; exit 3',
      env,
      timeoutMs: 10_000,
    });
    await expect(installing).rejects.toThrow(BuildError);
    await expect(installing).rejects.toThrow(/the install command ".*" failed: .*\n.*E404 no such package: left-padd/);
  });

  test('an install that outlives its timeout is ended, with every process it started, and said so', async () => {
    const dir = join(scratch, 'install-hangs');
    mkdirSync(dir);
    // The shell waits on a child of its own (one that holds no pipe of ours): killing the shell alone would leave it running.
    const installing = installPackages(dir, {
      installCommand: 'sleep 30 >/dev/null 2>&1 & echo $! > child.pid; wait',
      env,
      timeoutMs: 500,
    });
    await expect(installing).rejects.toThrow(/did not finish within 0.5 s/);
    const childPid = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    // The whole group got SIGKILL before the rejection; a loaded machine may take a moment to end it.
    await waitFor(`the install's child ${childPid} to end`, async () => !isRunning(childPid), 10_000, 20);
  });
});
