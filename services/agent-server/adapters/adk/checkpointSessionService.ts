// An ADK session service whose sessions live in the agent server's thread checkpoints. The graph
// `wrap(runner)` returns keeps each thread's ADK session (state and events) in a state channel,
// so the checkpointer the server runs with (memory or PostgreSQL) stores it with the thread:
// before a turn the wrapper hands the service the session from the checkpoint (none on a
// thread's first turn: the runner's getOrCreate makes it), the runner reads and appends to it,
// and after the turn the wrapper takes it back and returns it as the node's update, which the
// checkpointer saves at the end of the step.
//
// The service itself holds only the sessions of turns in progress, so listing sees those, not
// every stored thread. Each turn's sessions are its own (the wrapper runs the turn in `turn`):
// two turns with one app, user and session id at once (two workspaces' threads of one id, both
// with the anonymous user) never see each other's session.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { BaseSessionService, createEvent, createSession, type Session } from '@google/adk';

type CreateSessionRequest = Parameters<BaseSessionService['createSession']>[0];
type GetSessionRequest = Parameters<BaseSessionService['getSession']>[0];
type ListSessionsRequest = Parameters<BaseSessionService['listSessions']>[0];
type ListSessionsResponse = Awaited<ReturnType<BaseSessionService['listSessions']>>;
type DeleteSessionRequest = Parameters<BaseSessionService['deleteSession']>[0];

/** The turn in progress, in the async context of its runner. */
const turns = new AsyncLocalStorage<string>();

const keyOf = (appName: string, userId: string, sessionId: string) =>
  JSON.stringify([turns.getStore() ?? null, appName, userId, sessionId]);

export class CheckpointSessionService extends BaseSessionService {
  readonly #sessions = new Map<string, Session>();

  /** Runs one turn (staging, the runner, taking back) with sessions of its own. */
  turn<T>(fn: () => T): T {
    return turns.run(randomUUID(), fn);
  }

  async createSession({ appName, userId, state, sessionId }: CreateSessionRequest): Promise<Session> {
    const id = sessionId ?? crypto.randomUUID();
    const key = keyOf(appName, userId, id);
    if (this.#sessions.has(key))
      throw new Error(`ADK session ${id} of app ${appName} and user ${userId} already exists`);
    const session = createSession({ id, appName, userId, state: { ...state }, events: [], lastUpdateTime: Date.now() });
    this.#sessions.set(key, session);
    return session;
  }

  async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    const session = this.#sessions.get(keyOf(appName, userId, sessionId));
    if (!session || !config) return session;
    // A filtered view: the runner appends to the session it gets unfiltered.
    let events = session.events;
    if (config.afterTimestamp !== undefined) events = events.filter((e) => e.timestamp >= config.afterTimestamp!);
    if (config.numRecentEvents !== undefined) events = events.slice(-config.numRecentEvents);
    return { ...session, events };
  }

  async listSessions({ appName, userId, limit, page = 1 }: ListSessionsRequest): Promise<ListSessionsResponse> {
    const turn = JSON.stringify(turns.getStore() ?? null);
    const all = [...this.#sessions.entries()]
      .filter(([key]) => key.startsWith(`[${turn},`))
      .map(([, s]) => s)
      .filter((s) => s.appName === appName && (userId === undefined || s.userId === userId));
    const size = limit ?? (all.length || 1);
    const sessions = all.slice((page - 1) * size, page * size).map((s) => ({ ...s, events: [] }));
    return {
      sessions,
      page,
      limit: size,
      totalItems: all.length,
      totalPages: Math.max(1, Math.ceil(all.length / size)),
    };
  }

  async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    this.#sessions.delete(keyOf(appName, userId, sessionId));
  }

  /** The wrapper, before a turn: the thread's session as its checkpoint holds it (none on its first turn). */
  stage(key: { appName: string; userId: string; sessionId: string }, stored: Session | null): void {
    const k = keyOf(key.appName, key.userId, key.sessionId);
    // Events come back from the checkpoint as plain JSON: made ADK events again.
    if (stored)
      this.#sessions.set(k, {
        ...stored,
        appName: key.appName,
        userId: key.userId,
        id: key.sessionId,
        events: stored.events.map((e) => createEvent(e)),
      });
    else this.#sessions.delete(k);
  }

  /** The wrapper, after a turn: the session as the turn left it, for the checkpoint; the service forgets it. */
  take(key: { appName: string; userId: string; sessionId: string }): Session | undefined {
    const k = keyOf(key.appName, key.userId, key.sessionId);
    const session = this.#sessions.get(k);
    this.#sessions.delete(k);
    return session;
  }
}
