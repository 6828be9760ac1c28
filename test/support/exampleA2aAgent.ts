// The example A2A agent (examples/otel-a2a-agent) as a child process of a
// test, the way one would run it, on a free port; and JSON-RPC calls to A2A endpoints on the
// spec's wire (A2A 0.3: message/send, optional top-level `metadata`).
import { randomUUID } from 'node:crypto';
import { freePort, startService, waitFor, type ServiceProcess } from './serviceProcess.ts';

export interface ExampleA2aAgent {
  url: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** `env` adds to or overrides the agent's (e.g. LANGSMITH_* to trace into a stack). */
export async function startExampleA2aAgent(name: string, env: Record<string, string> = {}): Promise<ExampleA2aAgent> {
  const port = await freePort();
  // Spans are batched for 100 ms rather than the default 5 s, so tests see them soon.
  const child = startService(
    'examples/otel-a2a-agent/main.ts',
    { A2A_EXAMPLE_AGENT_PORT: String(port), OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
    `echo-agent-${name}`,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`the example A2A agent at ${url}`, async () => {
    if (child.child.exitCode !== null)
      throw new Error(
        `the example agent exited with ${child.child.exitCode} (see .local/logs/test/echo-agent-${name}.log)`,
      );
    return (await fetch(`${url}/ok`)).ok;
  });
  return { url, process: child, stop: () => child.stop() };
}

/** The tracing variables that send a process's traces to a tracing API, into `project`. */
export const tracingEnv = (endpoint: string, apiKey: string, project: string): Record<string, string> => ({
  LANGSMITH_TRACING: 'true',
  LANGSMITH_ENDPOINT: endpoint,
  LANGSMITH_API_KEY: apiKey,
  LANGSMITH_PROJECT: project,
});

/** POSTs a v0.3 message/send with one text part; `contextId` continues a conversation, `metadata` is the request's top-level member. */
export async function sendText(
  endpoint: string,
  text: string,
  options: { contextId?: string; metadata?: unknown } = {},
): Promise<any> {
  const message = {
    kind: 'message',
    role: 'user',
    messageId: randomUUID(),
    parts: [{ kind: 'text', text }],
    ...(options.contextId ? { contextId: options.contextId } : {}),
  };
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomUUID(),
      method: 'message/send',
      params: { message },
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    }),
  });
  if (res.status !== 200) throw new Error(`message/send answered ${res.status}: ${await res.text()}`);
  return res.json();
}
