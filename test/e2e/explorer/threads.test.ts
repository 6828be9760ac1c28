// The explorer's threads views in a real browser, on conversations traced by the official
// `langsmith` client (metadata thread_id, and session_id for another): the project's threads
// with their turn counts and first input / last output, one thread's turns in order with their
// inputs and outputs as chat text, each linking to its trace; a project without threads says
// how to make them. Screenshots in test-output/explorer/threads/.
import { Client } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let projectId: string;
const projectName = `threads-page-${Date.now()}`;
const supportThread = `support-${Date.now()}`;
const otherThread = `other-${Date.now()}`;
const CONVERSATION: [string, string][] = [
  ['Hi, I am Ada', 'Hello Ada! How can I help?'],
  ['What is 2+2?', '2+2 is 4.'],
  ['Thanks!', 'You are welcome.'],
];
/** The support thread's trace ids, in turn order. */
const turnTraceIds: string[] = [];

beforeAll(async () => {
  const started = await startExplorerBrowser('threads');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const options = { client, project_name: projectName, tracingEnabled: true };
  const model = traceable(
    async (text: string) => ({
      content: text,
      usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    }),
    {
      ...options,
      name: 'model',
      run_type: 'llm',
    },
  );
  // A chat turn: messages in, the assistant's message out (as a chat app traces it).
  const turn = traceable(
    async (input: { messages: { role: string; content: string }[] }) => {
      turnTraceIds.push(getCurrentRunTree().trace_id);
      const reply = CONVERSATION.find(([q]) => q === input.messages[input.messages.length - 1]!.content)![1];
      await model(reply);
      return { role: 'assistant', content: reply };
    },
    { ...options, name: 'chat-turn', metadata: { thread_id: supportThread } },
  );
  const history: { role: string; content: string }[] = [];
  for (const [question, answer] of CONVERSATION) {
    history.push({ role: 'user', content: question });
    await turn({ messages: [...history] });
    history.push({ role: 'assistant', content: answer });
    // The client stamps start times in milliseconds: turns in one millisecond would be ordered by
    // trace id, not by when they were asked (a person's turns are seconds apart).
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // Another conversation, grouped by session_id, and a trace in no thread.
  await traceable(async (q: string) => `answer to ${q}`, {
    ...options,
    name: 'lookup',
    metadata: { session_id: otherThread },
  })('Lone question');
  await traceable(async () => 'no thread', { ...options, name: 'batch-job' })();
  await client.awaitPendingTraceBatches();
  projectId = await waitForTraceCount(workspace.apiKey, projectName, 5);
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

describe('the threads views', () => {
  test("a project's threads, one thread's turns in order each linking to its trace", async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${projectId}/threads`);
    await expect.poll(() => page.getByTestId('thread-row').count()).toBe(2);
    // Most recent activity first: the API's order (two threads active in the same millisecond tie).
    const listed = await api('/api/v2/threads/query', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { project_id: projectId },
    });
    expect(await page.getByTestId('thread-link').allTextContents()).toEqual(
      listed.body.items.map((t: { thread_id: string }) => t.thread_id),
    );
    expect((await page.getByTestId('thread-link').allTextContents()).sort()).toEqual([otherThread, supportThread]);
    const row = page.locator(`[data-testid="thread-row"][data-thread-id="${supportThread}"]`);
    expect(await row.getByTestId('thread-turns').textContent()).toBe('3');
    expect(await row.getByTestId('thread-first-input').textContent()).toBe('Hi, I am Ada');
    expect(await row.getByTestId('thread-last-output').textContent()).toBe('You are welcome.');
    const other = page.locator(`[data-testid="thread-row"][data-thread-id="${otherThread}"]`);
    expect(await other.getByTestId('thread-first-input').textContent()).toBe('Lone question');
    expect(await other.getByTestId('thread-last-output').textContent()).toBe('answer to Lone question');
    await shot('01-threads');

    // One thread: its turns in order, each with its input and output, linking to its trace.
    await row.getByTestId('thread-link').click();
    await expect.poll(() => page.getByTestId('turn').count()).toBe(3);
    expect(new URL(page.url()).pathname).toBe(`/ui/projects/${projectId}/threads/${supportThread}`);
    const apiTurns = await api(`/api/v2/threads/${supportThread}/traces?project_id=${projectId}`, {
      apiKey: workspace.apiKey,
    });
    expect(apiTurns.body.items.map((t: { trace_id: string }) => t.trace_id)).toEqual(turnTraceIds);
    expect(
      await page
        .getByTestId('turn')
        .evaluateAll((turns) => turns.map((t) => (t as unknown as { dataset: { traceId: string } }).dataset.traceId)),
    ).toEqual(turnTraceIds);
    const inputs = await page.getByTestId('turn-input').allTextContents();
    CONVERSATION.forEach(([question], i) => expect(inputs[i]).toContain(question));
    expect(await page.getByTestId('turn-output').allTextContents()).toEqual(
      CONVERSATION.map(([, answer]) => `assistant${answer}`),
    );
    expect(
      await page.getByTestId('turn-trace-link').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    ).toEqual(turnTraceIds.map((id) => `/ui/projects/${projectId}/traces/${id}`));
    expect(await page.getByTestId('thread-summary').textContent()).toContain('Turns3');
    await shot('02-thread');

    // A turn's link opens its trace.
    await page.getByTestId('turn-trace-link').nth(1).click();
    expect(new URL(page.url()).pathname).toBe(`/ui/projects/${projectId}/traces/${turnTraceIds[1]}`);
    await expect.poll(() => page.getByTestId('tree-run').count()).toBe(2);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a project without threads says how to group traces into threads', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const empty = await api('/sessions', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { name: `no-threads-${Date.now()}` },
    });
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${empty.body.id}/threads`);
    const note = page.getByTestId('threads-empty');
    await note.waitFor();
    for (const key of ['session_id', 'thread_id', 'conversation_id']) expect(await note.textContent()).toContain(key);
    await shot('03-no-threads');
    // An unknown thread is the API's 404, in words.
    await page.goto(`${tracingUrl()}/ui/projects/${projectId}/threads/no-such-thread`);
    await page.getByTestId('error').first().waitFor();
    expect(await page.getByTestId('error').first().textContent()).toContain('thread no-such-thread');
    await shot('04-unknown-thread');
    expect(problems).toEqual([]);
    await page.close();
  });
});
