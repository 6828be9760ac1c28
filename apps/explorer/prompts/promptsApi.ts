// The prompts pages' calls (docs/evaluation.md, "Prompts"): the workspace's prompts (the hub's
// repos: list, read, create, delete, like), a prompt's commits (list newest first, read one by
// hash, tag or `latest`, push one on top of the latest) and its tags (list, put on a commit).
// The owner in every path is `-`, the caller's workspace.
import { apiCall, type Credentials } from '../core/api.ts';

/** A prompt as GET /repos answers it. */
export interface Prompt {
  id: string;
  repo_handle: string;
  description: string | null;
  readme: string | null;
  tags: string[];
  created_at: string;
  updated_at: string;
  num_likes: number;
  liked_by_auth_user?: boolean;
  num_commits: number;
  last_commit_hash: string | null;
}

/** A commit as GET /commits/-/{name}/ lists it, its manifest as pushed (a model included). */
export interface PromptCommit {
  id: string;
  commit_hash: string;
  parent_commit_hash: string | null;
  description: string | null;
  created_at: string;
  manifest: Record<string, unknown>;
}

/** A commit as GET /commits/-/{name}/{ref} answers it. */
export interface PulledCommit {
  id: string;
  commit_hash: string;
  parent_commit_hash: string | null;
  description: string | null;
  created_at: string;
  manifest: Record<string, unknown>;
}

/** A tag of a prompt: the commit it names. */
export interface PromptTag {
  tag_name: string;
  commit_id: string;
  commit_hash: string;
  updated_at: string;
}

/** The API's largest page (prompts and commits alike). */
export const PROMPTS_PAGE = 100;

const repo = (name: string) => `/repos/-/${encodeURIComponent(name)}`;
const commits = (name: string) => `/commits/-/${encodeURIComponent(name)}`;

/** A page of prompts, newest change first; `search` is in the name or the description. */
export function listPrompts(
  c: Credentials,
  offset: number,
  search: string,
): Promise<{ repos: Prompt[]; total: number }> {
  const params = new URLSearchParams({ limit: String(PROMPTS_PAGE), offset: String(offset) });
  if (search) params.set('query', search);
  return apiCall(c, 'GET', `/repos?${params}`);
}

export const getPrompt = (c: Credentials, name: string) =>
  apiCall<{ repo: Prompt }>(c, 'GET', repo(name)).then((r) => r.repo);

export const createPrompt = (c: Credentials, name: string, description: string | null) =>
  apiCall<{ repo: Prompt }>(c, 'POST', '/repos', { repo_handle: name, description }).then((r) => r.repo);

export const deletePrompt = (c: Credentials, name: string) => apiCall<null>(c, 'DELETE', repo(name));

/** Likes or unlikes the prompt as the caller's API key; the number of likes after. */
export const likePrompt = (c: Credentials, name: string, like: boolean) =>
  apiCall<{ likes: number }>(c, 'POST', `/likes/-/${encodeURIComponent(name)}`, { like }).then((r) => r.likes);

/** A page of a prompt's commits, newest first, with the total. */
export const listCommits = (c: Credentials, name: string, offset: number) =>
  apiCall<{ commits: PromptCommit[]; total: number }>(
    c,
    'GET',
    `${commits(name)}/?limit=${PROMPTS_PAGE}&offset=${offset}`,
  );

/** The commit a ref names (`latest`, a tag, a hash or its 8+ character prefix), its model included. */
export const readCommit = (c: Credentials, name: string, ref: string) =>
  apiCall<PulledCommit>(c, 'GET', `${commits(name)}/${encodeURIComponent(ref)}?include_model=true`);

/**
 * A new commit of the manifest on top of `parent` (the hash the edit started from: a commit the
 * prompt has since answers 409; null for a prompt's first commit).
 */
export const pushCommit = (
  c: Credentials,
  name: string,
  manifest: Record<string, unknown>,
  parent: string | null,
  description: string | null,
) =>
  apiCall<{ commit: PromptCommit }>(c, 'POST', commits(name), {
    manifest,
    parent_commit: parent,
    description,
  }).then((r) => r.commit);

export const listTags = (c: Credentials, name: string) => apiCall<PromptTag[]>(c, 'GET', `${repo(name)}/tags`);

/** Puts the tag on the commit (by its id); a tag on another commit moves here. */
export const tagCommit = (c: Credentials, name: string, tag: string, commitId: string) =>
  apiCall<{ tag_name: string; commit_hash: string }>(c, 'POST', `${repo(name)}/tags`, {
    tag_name: tag,
    commit_id: commitId,
  });
