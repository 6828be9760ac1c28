// Create, change and delete prompts, commit their versions, tag and like them: check against the
// prompts' fold, append the event, wait until the fold has it (read-your-writes across replicas).
// A name a live prompt of the workspace holds is a 409; so is a commit whose parent is not the
// latest commit (the fold decides a race the same way, and the command reads its answer back).
import { randomUUID } from 'node:crypto';
import { errors } from '../../platform/errors.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import {
  commitHash,
  promptCommittedEvent,
  promptCreatedEvent,
  promptDeletedEvent,
  promptLikedEvent,
  promptTaggedEvent,
  promptUpdatedEvent,
  type Prompt,
  type PromptCommit,
  type PromptFields,
  type PromptRegistry,
} from '../../projections/prompts/promptRegistry.ts';

/** Owner `-` is the caller's workspace: the only owner served (no public hub, no handles). */
export const OWN = '-';

/** How short a hash prefix may be (the clients' URLs show 8 characters). */
const MIN_PREFIX = 8;

export class PromptCommands {
  readonly #prompts: PromptRegistry;
  readonly #log: EventLog;

  constructor(prompts: PromptRegistry, log: EventLog) {
    this.#prompts = prompts;
    this.#log = log;
  }

  /** The live prompt owner/name of the workspace, or a 404 ("prompt … not found"). */
  async prompt(tenantId: string, owner: string, name: string): Promise<Prompt> {
    await this.#prompts.catchUp();
    const prompt = owner === OWN ? this.#prompts.byName(tenantId, name) : undefined;
    if (!prompt) throw errors.notFound(`prompt ${owner}/${name}`);
    return prompt;
  }

  async create(tenantId: string, name: string, fields: PromptFields): Promise<Prompt> {
    await this.#prompts.catchUp();
    if (this.#prompts.byName(tenantId, name)) throw errors.conflict(`prompt ${name} already exists`);
    const id = randomUUID();
    await this.#log.append([promptCreatedEvent(tenantId, id, name, fields)]);
    await this.#prompts.catchUp();
    const made = this.#prompts.byName(tenantId, name);
    if (made?.id !== id) throw errors.conflict(`prompt ${name} was taken while it was being created`);
    return made;
  }

  async update(tenantId: string, owner: string, name: string, fields: PromptFields): Promise<Prompt> {
    const prompt = await this.prompt(tenantId, owner, name);
    if (Object.values(fields).some((v) => v !== undefined)) {
      await this.#log.append([promptUpdatedEvent(tenantId, prompt.id, fields)]);
      await this.#prompts.catchUp();
    }
    return this.prompt(tenantId, owner, name);
  }

  async delete(tenantId: string, owner: string, name: string): Promise<void> {
    const prompt = await this.prompt(tenantId, owner, name);
    await this.#log.append([promptDeletedEvent(tenantId, prompt.id)]);
    await this.#prompts.catchUp();
  }

  /**
   * A new commit on top of the latest. `parent` is the hash the caller built on: absent or null
   * means the latest; another is a 409 (the prompt moved on since the caller read it).
   */
  async commit(
    tenantId: string,
    owner: string,
    name: string,
    manifest: Record<string, unknown>,
    parent: string | null,
    description: string | null,
  ): Promise<PromptCommit> {
    const prompt = await this.prompt(tenantId, owner, name);
    const latest = this.#prompts.commits(tenantId, prompt.id).at(-1) ?? null;
    if (parent !== null && parent !== latest?.hash)
      throw errors.conflict(
        latest === null
          ? `parent commit ${parent} is not the latest commit of prompt ${name}: it has no commits`
          : `parent commit ${parent} is not the latest commit of prompt ${name} (${latest.hash} is): pull it and commit again`,
      );
    const json = JSON.stringify(manifest);
    const id = randomUUID();
    const hash = commitHash(latest?.hash ?? null, json);
    await this.#log.append([
      promptCommittedEvent(tenantId, prompt.id, {
        id,
        hash,
        parentHash: latest?.hash ?? null,
        manifest: json,
        description,
      }),
    ]);
    await this.#prompts.catchUp();
    const made = this.#prompts.commit(tenantId, prompt.id, id);
    if (!made)
      throw errors.conflict(`prompt ${name} got another commit on top of ${latest?.hash ?? 'nothing'} meanwhile`);
    return made;
  }

  /** The commit a reference names: `latest`, a tag, a full hash, or a hash prefix of 8 characters or more (the newest it starts). */
  async resolve(
    tenantId: string,
    owner: string,
    name: string,
    ref: string,
  ): Promise<{ prompt: Prompt; commit: PromptCommit }> {
    const prompt = await this.prompt(tenantId, owner, name);
    const commits = this.#prompts.commits(tenantId, prompt.id);
    const commit =
      ref === 'latest'
        ? commits.at(-1)
        : (this.#prompts.tagged(tenantId, prompt.id, ref) ??
          (ref.length >= MIN_PREFIX ? commits.findLast((c) => c.hash.startsWith(ref.toLowerCase())) : undefined));
    if (!commit)
      throw errors.notFound(ref === 'latest' ? `a commit of prompt ${name}` : `commit ${ref} of prompt ${name}`);
    return { prompt, commit };
  }

  async tag(tenantId: string, owner: string, name: string, tag: string, commitId: string): Promise<PromptCommit> {
    const prompt = await this.prompt(tenantId, owner, name);
    const commit = this.#prompts.commit(tenantId, prompt.id, commitId);
    if (!commit) throw errors.notFound(`commit ${commitId} of prompt ${name}`);
    await this.#log.append([promptTaggedEvent(tenantId, prompt.id, tag, commitId)]);
    await this.#prompts.catchUp();
    return commit;
  }

  /** Likes (or unlikes) a prompt as the caller's API key; the number of likes after. */
  async like(tenantId: string, owner: string, name: string, liker: string, like: boolean): Promise<number> {
    const prompt = await this.prompt(tenantId, owner, name);
    if (this.#prompts.likers(tenantId, prompt.id).has(liker) !== like) {
      await this.#log.append([promptLikedEvent(tenantId, prompt.id, liker, like)]);
      await this.#prompts.catchUp();
    }
    return this.#prompts.likers(tenantId, prompt.id).size;
  }
}
