// A protocol run that another replica executes, followed from here: that replica's own event
// stream of the run (POST /threads/{id}/stream/events, naming the run in PROTOCOL_RUN_HEADER),
// asked for with the caller's credentials (the owner checks them as any request's) and the
// subscription's filter, its frames passed on as they come. A relayed request is never relayed again.
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';
import { callerHeaders, RELAYED_HEADER } from '../runs/replicaProxy.ts';
import type { OutgoingFrame, RemoteRun } from './protocolStreams.ts';
import type { Subscription } from './runLog.ts';

/** Names the one run a relayed stream request asks for. */
export const PROTOCOL_RUN_HEADER = 'x-agent-protocol-run';

/** The run's events at the replica that executes it; none when that replica cannot give them (gone, or it forgot the run). */
export async function* relayProtocolRun(
  request: FastifyRequest,
  thread: ThreadKey,
  run: RemoteRun,
  subscription: Subscription,
  signal: AbortSignal,
): AsyncGenerator<OutgoingFrame> {
  let answer;
  try {
    answer = await undiciRequest(`${run.url}/threads/${encodeURIComponent(thread.threadId)}/stream/events`, {
      method: 'POST',
      headers: {
        [RELAYED_HEADER]: '1',
        ...callerHeaders(request),
        [PROTOCOL_RUN_HEADER]: run.runId,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(subscription),
      signal,
    });
  } catch {
    return;
  }
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    return;
  }
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for await (const chunk of answer.body) {
      pending += decoder.decode(chunk as Buffer, { stream: true });
      let end = pending.indexOf('\n\n');
      while (end >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
        // heartbeats (comment lines) are this stream's own business
        const id = /^id: (.*)$/m.exec(block)?.[1];
        if (id === undefined) continue;
        yield { frame: `${block}\n\n`, seq: Number(id.slice(id.lastIndexOf('.') + 1)) };
      }
    }
  } catch {
    // the owner went away, or the subscriber did: the run's events end here
  } finally {
    if (!answer.body.destroyed) answer.body.destroy();
  }
}
