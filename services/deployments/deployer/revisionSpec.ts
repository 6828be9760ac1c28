// What the local deployer is asked to run (one revision of a deployment), and what it reports
// back: the revision statuses of the control plane it passes through (contract §4.1) and the
// life of the running process (crashes, restarts, giving up), for the API side to append as events.
import type { BlobStore } from '../../../platform/blobStore.ts';

/** Where a revision's code comes from. `configPath` is the langgraph.json, relative to the source's root. */
export type RevisionSource =
  | { kind: 'git'; repoUrl: string; ref: string; configPath: string }
  | { kind: 'tarball'; path: string; configPath?: string }
  /** A .tar.gz a client uploaded to the object store (internal_source), read through SourceUploads. */
  | { kind: 'upload'; objectPath: string; configPath?: string }
  | { kind: 'directory'; path: string; configPath?: string };

/** Where uploaded source tarballs are read from: the control plane's object store. */
export type SourceUploads = Pick<BlobStore, 'downloadToFile'>;

/** The largest source tarball built: the official CLIs refuse to upload more (200 MiB). */
export const MAX_SOURCE_TARBALL_BYTES = 200 * 1024 * 1024;

export interface RevisionSpec {
  deploymentId: string;
  revisionId: string;
  /** Also the tracing project the server traces into (LANGSMITH_PROJECT). */
  deploymentName: string;
  tenantId: string;
  source: RevisionSource;
  /** A shell command run at the source's root instead of `npm install --no-audit --no-fund`. */
  installCommand?: string;
  /** A shell command run after the install, where the langgraph.json lives (source_config.build_command). */
  buildCommand?: string;
  /**
   * The key the revision's agent server runs with, issued by tenancy for this revision (its
   * workspace only): it traces with it and verifies its callers' keys with it. Revoked with the revision.
   */
  apiKey: string;
  /** The deployment's environment; langgraph.json's `env` fills what this leaves unset. */
  env: Record<string, string>;
  /** The deployment's secrets, decrypted: environment variables of the server, never logged. */
  secrets: Record<string, string>;
}

/** The revision statuses the deployer sets (a subset of the control plane's 13). */
export type DeployerRevisionStatus =
  | 'AWAITING_BUILD'
  | 'BUILDING'
  | 'BUILD_FAILED'
  | 'AWAITING_DEPLOY'
  | 'DEPLOYING'
  | 'DEPLOY_FAILED'
  | 'DEPLOYED';

interface RevisionRef {
  deploymentId: string;
  revisionId: string;
}

export type DeployerEvent = RevisionRef &
  (
    | {
        type: 'status';
        status: DeployerRevisionStatus;
        /** Why, for the *_FAILED statuses: a sentence a person can act on, with the last lines of output. */
        message?: string;
        /** The server's URL, once DEPLOYED. */
        url?: string;
        /** The commit built, for a git source (the control plane's repo_commit_sha), from AWAITING_DEPLOY on. */
        commitSha?: string;
        /** DEPLOYED: how the server authenticates callers (its langgraph.json's auth module, or API keys). */
        serverAuth?: 'api_key' | 'custom';
      }
    /** Lines the revision's build commands or its agent server wrote. */
    | { type: 'log'; kind: 'build' | 'deploy'; stream: 'stdout' | 'stderr' | 'deployer'; text: string }
    | { type: 'process_exited'; code: number | null; signal: string | null; restartInMs: number }
    | { type: 'process_restarted'; pid: number; url: string }
    /** It kept dying (or cannot start): it is not restarted again; the revision serves nothing now. */
    | { type: 'process_given_up'; message: string }
  );

/** The end of a deploy(): DEPLOYED with the server's URL, or the failure and why. */
export type DeployOutcome =
  | { status: 'DEPLOYED'; url: string; pid: number; commitSha?: string; serverAuth: 'api_key' | 'custom' }
  | { status: 'BUILD_FAILED' | 'DEPLOY_FAILED'; message: string };
