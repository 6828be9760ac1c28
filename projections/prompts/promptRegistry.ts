// Prompts (hub repos), folded from their topic in every API process: each prompt with its
// commits (manifests, oldest first), its tags and who likes it. One partition, so every replica
// folds the same events in the same order, and agrees on who holds a name and which commit is
// the latest. Manifests are small (a prompt template is a few KiB; a commit is at most 512 KiB).
//
// Fold rules (deterministic, so replicas agree without talking to each other):
// - a creation whose name a live prompt of the workspace holds, or whose id was used before, is
//   ignored (the command that appended it reads that back and answers 409);
// - changes, commits, tags and likes of a prompt that is not live are ignored;
// - a commit whose parent is not the prompt's latest commit (none for a first commit), or whose
//   hash the prompt has, is ignored: two commits racing on one parent give one;
// - a tag names one commit of its prompt: tagging another moves it; a tag of a commit the prompt
//   does not have is ignored;
// - a like is one per liker (API key): liking twice is liking once, unliking takes it back.
import { createHash } from 'node:crypto';
import type { EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { event, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { nowMicros } from '../../platform/time.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type { PromptCommitted, PromptCreated, PromptUpdated } from '../../schemas/events.generated.ts';
import { TOPICS } from '../../schemas/topics.ts';

export interface Prompt {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly readme: string | null;
  readonly tags: readonly string[];
  readonly isArchived: boolean;
  /** Microseconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface PromptCommit {
  readonly id: string;
  readonly hash: string;
  readonly parentHash: string | null;
  readonly parentId: string | null;
  /** The manifest's JSON, as committed. */
  readonly manifest: string;
  readonly description: string | null;
  /** Microseconds since the epoch. */
  readonly createdAt: number;
}

/** A tag of a prompt: the commit it names; first put on a commit and last moved (microseconds). */
export interface PromptTag {
  readonly name: string;
  readonly commit: PromptCommit;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a change sets (undefined leaves a field as it is). */
export interface PromptFields {
  description?: string | null;
  readme?: string | null;
  tags?: string[];
  isArchived?: boolean;
}

const key = (tenantId: string, promptId: string) => `${tenantId}/${promptId}`;

/** A commit's hash: sha256 of its parent's hash (empty for none) and the manifest's JSON, hex, the first 40 characters. */
export const commitHash = (parentHash: string | null, manifest: string): string =>
  createHash('sha256')
    .update(parentHash ?? '')
    .update('\n')
    .update(manifest)
    .digest('hex')
    .slice(0, 40);

export const promptCreatedEvent = (
  tenantId: string,
  promptId: string,
  name: string,
  f: PromptFields,
): EventToAppend<'PromptCreated'> =>
  event('PromptCreated', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    repo_handle: name,
    description: f.description ?? null,
    readme: f.readme ?? null,
    tags: f.tags ?? [],
    created_at: nowMicros(),
  });

export function promptUpdatedEvent(
  tenantId: string,
  promptId: string,
  f: PromptFields,
): EventToAppend<'PromptUpdated'> {
  const fields = (
    [
      ['description', f.description],
      ['readme', f.readme],
      ['tags', f.tags],
      ['is_archived', f.isArchived],
    ] as const
  )
    .filter(([, v]) => v !== undefined)
    .map(([name]) => name);
  return event('PromptUpdated', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    fields,
    description: f.description ?? null,
    readme: f.readme ?? null,
    tags: f.tags ?? null,
    is_archived: f.isArchived ?? null,
    updated_at: nowMicros(),
  });
}

export const promptDeletedEvent = (tenantId: string, promptId: string): EventToAppend<'PromptDeleted'> =>
  event('PromptDeleted', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    deleted_at: nowMicros(),
  });

export const promptCommittedEvent = (
  tenantId: string,
  promptId: string,
  c: { id: string; hash: string; parentHash: string | null; manifest: string; description: string | null },
): EventToAppend<'PromptCommitted'> =>
  event('PromptCommitted', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    commit_id: c.id,
    commit_hash: c.hash,
    parent_commit_hash: c.parentHash,
    manifest: c.manifest,
    description: c.description,
    committed_at: nowMicros(),
  });

export const promptTaggedEvent = (
  tenantId: string,
  promptId: string,
  tagName: string,
  commitId: string,
): EventToAppend<'PromptTagged'> =>
  event('PromptTagged', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    tag_name: tagName,
    commit_id: commitId,
    tagged_at: nowMicros(),
  });

export const promptLikedEvent = (
  tenantId: string,
  promptId: string,
  liker: string,
  like: boolean,
): EventToAppend<'PromptLiked'> =>
  event('PromptLiked', key(tenantId, promptId), {
    tenant_id: tenantId,
    prompt_id: promptId,
    liker,
    like,
    liked_at: nowMicros(),
  });

interface PromptState {
  prompt: Prompt;
  /** Oldest first. */
  commits: PromptCommit[];
  byId: Map<string, PromptCommit>;
  /** Tag name -> the commit it names, when it was first put on a commit and when last moved (microseconds). */
  tags: Map<string, { commitId: string; createdAt: number; updatedAt: number }>;
  likers: Set<string>;
}

export class PromptRegistry extends FoldedTopic {
  readonly #prompts = new Map<string, PromptState>();
  /** Workspace/name -> the live prompt's id. */
  readonly #names = new Map<string, string>();
  /** Ids ever used per workspace. */
  readonly #used = new Set<string>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.prompts, 'prompts', logger);
  }

  override readonly apply = (e: DecodedEvent): void => {
    switch (e.name) {
      case 'PromptCreated':
        return this.#created(e.payload);
      case 'PromptUpdated':
        return this.#updated(e.payload);
      case 'PromptDeleted': {
        const k = key(e.payload.tenant_id, e.payload.prompt_id);
        const state = this.#prompts.get(k);
        if (!state) return;
        this.#prompts.delete(k);
        this.#names.delete(key(state.prompt.tenantId, state.prompt.name));
        return;
      }
      case 'PromptCommitted':
        return this.#committed(e.payload);
      case 'PromptTagged': {
        const state = this.#prompts.get(key(e.payload.tenant_id, e.payload.prompt_id));
        if (!state?.byId.has(e.payload.commit_id)) return;
        const { tag_name: tag, commit_id: commitId, tagged_at: at } = e.payload;
        state.tags.set(tag, { commitId, createdAt: state.tags.get(tag)?.createdAt ?? at, updatedAt: at });
        return;
      }
      case 'PromptLiked': {
        const state = this.#prompts.get(key(e.payload.tenant_id, e.payload.prompt_id));
        if (!state) return;
        if (e.payload.like) state.likers.add(e.payload.liker);
        else state.likers.delete(e.payload.liker);
        return;
      }
    }
  };

  #created(c: PromptCreated): void {
    const k = key(c.tenant_id, c.prompt_id);
    const nameKey = key(c.tenant_id, c.repo_handle);
    if (this.#used.has(k) || this.#names.has(nameKey)) return;
    this.#used.add(k);
    this.#names.set(nameKey, c.prompt_id);
    this.#prompts.set(k, {
      prompt: {
        id: c.prompt_id,
        tenantId: c.tenant_id,
        name: c.repo_handle,
        description: c.description,
        readme: c.readme,
        tags: c.tags,
        isArchived: false,
        createdAt: c.created_at,
        updatedAt: c.created_at,
      },
      commits: [],
      byId: new Map(),
      tags: new Map(),
      likers: new Set(),
    });
  }

  #updated(u: PromptUpdated): void {
    const state = this.#prompts.get(key(u.tenant_id, u.prompt_id));
    if (!state) return;
    const named = new Set(u.fields);
    const p = state.prompt;
    state.prompt = {
      ...p,
      description: named.has('description') ? u.description : p.description,
      readme: named.has('readme') ? u.readme : p.readme,
      tags: named.has('tags') && u.tags !== null ? u.tags : p.tags,
      isArchived: named.has('is_archived') && u.is_archived !== null ? u.is_archived : p.isArchived,
      updatedAt: Math.max(p.updatedAt, u.updated_at),
    };
  }

  #committed(c: PromptCommitted): void {
    const state = this.#prompts.get(key(c.tenant_id, c.prompt_id));
    if (!state) return;
    const latest = state.commits.at(-1);
    if ((latest?.hash ?? null) !== c.parent_commit_hash) return;
    if (state.byId.has(c.commit_id) || state.commits.some((x) => x.hash === c.commit_hash)) return;
    const commit: PromptCommit = {
      id: c.commit_id,
      hash: c.commit_hash,
      parentHash: c.parent_commit_hash,
      parentId: latest?.id ?? null,
      manifest: c.manifest,
      description: c.description,
      createdAt: c.committed_at,
    };
    state.commits.push(commit);
    state.byId.set(commit.id, commit);
    state.prompt = { ...state.prompt, updatedAt: Math.max(state.prompt.updatedAt, c.committed_at) };
  }

  /** The workspace's live prompt of that name. */
  byName(tenantId: string, name: string): Prompt | undefined {
    const id = this.#names.get(key(tenantId, name));
    return id === undefined ? undefined : this.#prompts.get(key(tenantId, id))?.prompt;
  }

  /** Whether the id was ever a prompt of the workspace. */
  isTaken(tenantId: string, promptId: string): boolean {
    return this.#used.has(key(tenantId, promptId));
  }

  /** The workspace's live prompts, in no particular order. */
  list(tenantId: string): Prompt[] {
    return [...this.#prompts.values()].filter((s) => s.prompt.tenantId === tenantId).map((s) => s.prompt);
  }

  /** A prompt's commits, oldest first. */
  commits(tenantId: string, promptId: string): readonly PromptCommit[] {
    return this.#prompts.get(key(tenantId, promptId))?.commits ?? [];
  }

  commit(tenantId: string, promptId: string, commitId: string): PromptCommit | undefined {
    return this.#prompts.get(key(tenantId, promptId))?.byId.get(commitId);
  }

  /** The commit a tag names. */
  tagged(tenantId: string, promptId: string, tag: string): PromptCommit | undefined {
    const state = this.#prompts.get(key(tenantId, promptId));
    const id = state?.tags.get(tag)?.commitId;
    return id === undefined ? undefined : state?.byId.get(id);
  }

  /** A prompt's tags by name, each with the commit it names (microseconds: first put, last moved). */
  tags(tenantId: string, promptId: string): PromptTag[] {
    const state = this.#prompts.get(key(tenantId, promptId));
    if (!state) return [];
    return [...state.tags]
      .map(([name, t]) => ({
        name,
        commit: state.byId.get(t.commitId)!,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Who likes a prompt (API key hashes). */
  likers(tenantId: string, promptId: string): ReadonlySet<string> {
    return this.#prompts.get(key(tenantId, promptId))?.likers ?? new Set();
  }
}
