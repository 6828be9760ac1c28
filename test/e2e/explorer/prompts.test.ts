// The explorer's prompts pages in a real browser, over prompts pushed with the `langsmith` client:
// a chat prompt of two commits (the first tagged prod, the prompt tagged and liked), one pushed
// with its model, a string prompt, and one to delete. In the pages: the list (description, tags,
// commits, last commit, likes; searched; a prompt created with its first commit, one deleted after
// a confirmation naming it), a prompt's page (its messages by role with the variables marked, its
// commits newest first with their tags, an older commit read, a tag moved and one put on a commit),
// a commit pushed by editing the messages (langchain's hub.pull formats it), the 409 of a stale
// parent shown and resolved, the model's settings, a string prompt, a prompt's first commit
// written in its page, the diff of two commits unified and side by side, and "Show more" past a
// hundred prompts and past a hundred commits of one. Screenshots in
// test-output/explorer/prompts/.
import { ChatPromptTemplate, PromptTemplate } from '@langchain/core/prompts';
import { ChatOpenAI } from '@langchain/openai';
import { pull } from 'langchain/hub';
import { Client } from 'langsmith';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { type ExplorerBrowser, type ExplorerPage, startExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let client: Client;
const stamp = Date.now();
const names = {
  chat: `support-answer-${stamp}`,
  model: `with-model-${stamp}`,
  string: `summary-${stamp}`,
  doomed: `old-draft-${stamp}`,
  created: `made-in-page-${stamp}`,
};
/** The chat prompt's commits, oldest first, as pushed. */
const hashes: string[] = [];

const v1 = ChatPromptTemplate.fromMessages([
  ['system', 'You answer questions about {product} in {language}.'],
  ['human', '{question}'],
]);
const v2 = ChatPromptTemplate.fromMessages([
  ['system', 'You answer questions about {product} in {language}, briefly and kindly.'],
  ['human', '{question}'],
]);

async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const res = await api(path, { ...init, apiKey: workspace.apiKey });
  expect(res.status, `${init.method ?? 'GET'} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}
const latestHash = async (name: string) => (await call(`/commits/-/${name}/latest`)).commit_hash as string;

beforeAll(async () => {
  const started = await startExplorerBrowser('prompts');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  await client.pushPrompt(names.chat, { object: v1, description: 'Answers support questions', commitTags: ['prod'] });
  hashes.push(await latestHash(names.chat));
  await client.pushPrompt(names.chat, { object: v2, tags: ['support', 'chat'] });
  hashes.push(await latestHash(names.chat));
  await client.likePrompt(names.chat);
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0.2, apiKey: 'sk-never-shown' });
  await client.pushPrompt(names.model, { object: v1.pipe(model), description: 'with its model' });
  await client.pushPrompt(names.string, {
    object: PromptTemplate.fromTemplate('Summarize {text} in {count} words.'),
    description: 'a string template',
  });
  await client.pushPrompt(names.doomed, { object: v1 });
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

/** A page of the explorer; a wait for something not there fails in 15 s, saying what it waited for. */
async function open(path: string): Promise<ExplorerPage> {
  const opened = await explorer!.open(workspace.apiKey, path);
  opened.page.setDefaultTimeout(15_000);
  // A failed test leaves the page as it was, to look at.
  const testName = expect.getState().currentTestName ?? path;
  onTestFailed(async () => {
    await opened.shot(`failed-${testName.replaceAll(/[^a-z0-9]+/gi, '-').slice(-60)}`);
    if (opened.problems.length > 0) console.error(`${testName}: the page's errors:\n${opened.problems.join('\n')}`);
  });
  return opened;
}

/** Waits for the page's commit to be shown; an error box in its place fails the test with its words. */
async function commitShown(page: Page): Promise<void> {
  await page.getByTestId('edit-commit').or(page.getByTestId('error')).first().waitFor();
  const error = page.getByTestId('error');
  if ((await error.count()) > 0) throw new Error(`the page shows an error: ${await error.first().textContent()}`);
}

const promptRow = (page: Page, name: string) => page.locator(`[data-testid="prompt-row"][data-prompt-name="${name}"]`);
const commitRow = (page: Page, hash: string) => page.locator(`[data-testid="commit-row"][data-commit-hash="${hash}"]`);
const messages = (page: Page) =>
  page
    .getByTestId('prompt-message')
    .evaluateAll((els) =>
      els.map((el) => [
        el.getAttribute('data-role'),
        el.querySelector('[data-testid="message-template"]')?.textContent ?? null,
      ]),
    );

describe('prompts in the explorer', () => {
  test('the list: description, tags, commits, last commit, likes; searched; one created with its first commit, one deleted', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await open('/ui/');
    await page.getByTestId('nav-prompts').click();
    expect(new URL(page.url()).pathname).toBe('/ui/prompts');
    const row = promptRow(page, names.chat);
    await expect.poll(() => row.getByTestId('prompt-name').textContent()).toBe(names.chat);
    expect(await row.getByTestId('prompt-description').textContent()).toBe('Answers support questions');
    expect(await row.getByTestId('prompt-tags').locator('.tag').allTextContents()).toEqual(['support', 'chat']);
    expect(await row.getByTestId('prompt-commits').textContent()).toBe('2');
    expect(await row.getByTestId('prompt-last-commit').locator('code').textContent()).toBe(hashes[1]!.slice(0, 8));
    await expect.poll(() => row.getByTestId('last-commit-time').textContent()).toMatch(/^\d+[smhd] ago$/);
    expect(await row.getByTestId('prompt-likes').textContent()).toBe('♥ 1');
    await expect.poll(() => page.getByTestId('prompt-row').count()).toBe(4);
    await shot('01-prompts');

    // Likes: the caller's own like toggles.
    await row.getByTestId('prompt-likes').click();
    await expect.poll(() => row.getByTestId('prompt-likes').textContent()).toBe('♡ 0');
    expect((await call(`/repos/-/${names.chat}`)).repo.num_likes).toBe(0);
    await row.getByTestId('prompt-likes').click();
    await expect.poll(() => row.getByTestId('prompt-likes').textContent()).toBe('♥ 1');

    // Searched in the URL, by the API (the name or the description).
    await page.getByTestId('prompt-search').fill('a string template');
    await expect.poll(() => page.getByTestId('prompt-name').allTextContents()).toEqual([names.string]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('a string template');
    await page.getByTestId('prompt-search').fill('no-such-prompt');
    await expect.poll(() => page.getByTestId('prompts-no-match').isVisible()).toBe(true);
    await page.getByTestId('prompt-search').fill('');
    await expect.poll(() => page.getByTestId('prompt-row').count()).toBe(4);

    // Deleted after a confirmation naming it.
    await promptRow(page, names.doomed).getByTestId('prompt-delete').click();
    const dialog = page.getByTestId('dialog');
    expect(await dialog.getByTestId('delete-question').textContent()).toBe(
      `Delete the prompt ${names.doomed} with its 1 commit and their tags? Clients pulling it get a 404 from then on. This cannot be undone.`,
    );
    await shot('02-delete-prompt');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => promptRow(page, names.doomed).count()).toBe(0);
    expect((await api(`/repos/-/${names.doomed}`, { apiKey: workspace.apiKey })).status).toBe(404);

    // Created with its first commit: a system message and the human's question, a placeholder between.
    await page.getByTestId('prompt-new').click();
    await dialog.getByTestId('prompt-name-input').fill('not a name');
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('prompt-problem').textContent()).toMatch(/no spaces/);
    await dialog.getByTestId('prompt-name-input').fill(names.created);
    expect(await dialog.getByTestId('prompt-problem').count()).toBe(0);
    await dialog.getByTestId('prompt-description-input').fill('Made in the page');
    const draft = (i: number) => dialog.getByTestId('message-draft').nth(i);
    await draft(0).getByTestId('message-template-input').fill('You are a travel agent for {city}.');
    await dialog.getByTestId('message-add-placeholder').click();
    await draft(2).getByTestId('message-template-input').fill('history');
    await draft(2).getByLabel('Move message 3 up').click();
    expect(await dialog.getByTestId('editor-variables').locator('code').allTextContents()).toEqual([
      'city',
      'history',
      'question',
    ]);
    await shot('03-new-prompt');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/ui/prompts/${names.created}`);
    await expect
      .poll(() => messages(page))
      .toEqual([
        ['system', 'You are a travel agent for {city}.'],
        ['placeholder', null],
        ['human', '{question}'],
      ]);
    // The commit is a prompt langchain loads and formats.
    const made = await pull<ChatPromptTemplate>(names.created, { client });
    const formatted = await made.formatMessages({ city: 'Lisbon', history: [], question: 'Trams?' });
    expect(formatted.map((m) => [m.getType(), m.content])).toEqual([
      ['system', 'You are a travel agent for Lisbon.'],
      ['human', 'Trams?'],
    ]);
    expect((await call(`/repos/-/${names.created}`)).repo.description).toBe('Made in the page');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a prompt’s page: messages with variables marked, commits newest first with tags, an older commit, a tag moved and one put', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await open('/ui/prompts');
    await promptRow(page, names.chat).getByTestId('prompt-name').click();
    expect(new URL(page.url()).pathname).toBe(`/ui/prompts/${names.chat}`);
    await expect
      .poll(() => messages(page))
      .toEqual([
        ['system', 'You answer questions about {product} in {language}, briefly and kindly.'],
        ['human', '{question}'],
      ]);
    expect(await page.getByTestId('template-variable').allTextContents()).toEqual([
      '{product}',
      '{language}',
      '{question}',
    ]);
    expect(await page.getByTestId('prompt-variables').locator('code').allTextContents()).toEqual([
      'product',
      'language',
      'question',
    ]);
    expect(await page.getByTestId('shown-commit-head').getAttribute('data-commit-hash')).toBe(hashes[1]);
    await expect
      .poll(() => page.getByTestId('commit-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-commit-hash'))))
      .toEqual([hashes[1], hashes[0]]);
    expect(await commitRow(page, hashes[0]!).getByTestId('commit-tag').allTextContents()).toEqual(['prod']);
    expect(await commitRow(page, hashes[1]!).getByTestId('commit-parent').textContent()).toBe(
      `parent ${hashes[0]!.slice(0, 8)}`,
    );
    expect(await commitRow(page, hashes[0]!).getByTestId('commit-parent').textContent()).toBe('first commit');
    expect(await commitRow(page, hashes[1]!).getAttribute('aria-current')).toBe('true');
    await shot('04-prompt');

    // An older commit, read by its hash.
    await commitRow(page, hashes[0]!).getByTestId('commit-hash').click();
    expect(new URL(page.url()).searchParams.get('commit')).toBe(hashes[0]);
    await expect.poll(() => page.getByTestId('shown-commit-head').getAttribute('data-commit-hash')).toBe(hashes[0]);
    expect((await messages(page))[0]).toEqual(['system', 'You answer questions about {product} in {language}.']);
    expect(await page.getByTestId('older-note').isVisible()).toBe(true);
    expect(await page.getByTestId('shown-commit-tag').allTextContents()).toEqual(['prod']);
    expect(await commitRow(page, hashes[0]!).getAttribute('aria-current')).toBe('true');
    await shot('05-older-commit');

    // prod moves to the latest: the dialog says from where first.
    await commitRow(page, hashes[1]!).getByTestId('commit-tag-button').click();
    const dialog = page.getByTestId('dialog');
    await dialog.getByTestId('tag-input').fill('prod');
    expect(await dialog.getByTestId('tag-move').textContent()).toBe(
      `prod is on commit ${hashes[0]!.slice(0, 8)} now: it moves to ${hashes[1]!.slice(0, 8)}.`,
    );
    await shot('06-move-tag');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => commitRow(page, hashes[1]!).getByTestId('commit-tag').allTextContents()).toEqual(['prod']);
    expect(await commitRow(page, hashes[0]!).getByTestId('commit-tag').count()).toBe(0);
    expect((await call(`/commits/-/${names.chat}/prod`)).commit_hash).toBe(hashes[1]);
    // A new tag on the commit shown (the older one).
    await page.getByTestId('shown-commit-tag-button').click();
    await dialog.getByTestId('tag-input').fill('baseline');
    expect(await dialog.getByTestId('tag-move').count()).toBe(0);
    await dialog.getByTestId('dialog-confirm').click();
    await expect
      .poll(() => commitRow(page, hashes[0]!).getByTestId('commit-tag').allTextContents())
      .toEqual(['baseline']);
    expect((await call(`/commits/-/${names.chat}/baseline`)).commit_hash).toBe(hashes[0]);
    // A tag in the URL names its commit.
    await page.goto(`${tracingUrl()}/ui/prompts/${names.chat}?commit=baseline`);
    await expect.poll(() => page.getByTestId('shown-commit-head').getAttribute('data-commit-hash')).toBe(hashes[0]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a commit pushed by editing the messages; a stale parent’s 409 shown, then committed on top of the newer one', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await open(`/ui/prompts/${names.chat}`);
    await commitShown(page);
    await page.getByTestId('edit-commit').click();
    const dialog = page.getByTestId('dialog');
    expect(await dialog.getByTestId('commit-base').textContent()).toBe(
      `On top of the latest commit, ${hashes[1]!.slice(0, 8)}.`,
    );
    const draft = (i: number) => dialog.getByTestId('message-draft').nth(i);
    expect(await draft(0).getByTestId('message-template-input').inputValue()).toBe(
      'You answer questions about {product} in {language}, briefly and kindly.',
    );
    // Nothing changed is not a commit.
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('commit-problem').textContent()).toBe('Nothing changed: edit a template first.');
    await draft(0)
      .getByTestId('message-template-input')
      .fill('You answer questions about {product} in {language}. Cite the {manual} when you can.');
    await dialog.getByTestId('message-add-ai').click();
    await draft(2).getByTestId('message-template-input').fill('Happy to help with {product}.');
    await dialog.getByTestId('commit-description-input').fill('cite the manual');
    expect(await dialog.getByTestId('editor-variables').locator('code').allTextContents()).toEqual([
      'product',
      'language',
      'manual',
      'question',
    ]);
    await shot('07-edit-commit');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => page.getByTestId('dialog').count()).toBe(0);
    await expect.poll(() => page.getByTestId('commit-row').count()).toBe(3);
    const pushed = await latestHash(names.chat);
    hashes.push(pushed);
    expect(await page.getByTestId('commit-row').first().getAttribute('data-commit-hash')).toBe(pushed);
    expect(await commitRow(page, pushed).getByTestId('commit-description').textContent()).toBe('cite the manual');
    expect(await commitRow(page, pushed).getByTestId('commit-parent').textContent()).toBe(
      `parent ${hashes[1]!.slice(0, 8)}`,
    );
    await expect
      .poll(() => messages(page))
      .toEqual([
        ['system', 'You answer questions about {product} in {language}. Cite the {manual} when you can.'],
        ['human', '{question}'],
        ['ai', 'Happy to help with {product}.'],
      ]);
    const hub = await pull<ChatPromptTemplate>(names.chat, { client });
    const formatted = await hub.formatMessages({
      product: 'Kettle',
      language: 'Dutch',
      manual: 'guide',
      question: 'Hot?',
    });
    expect(formatted.map((m) => [m.getType(), m.content])).toEqual([
      ['system', 'You answer questions about Kettle in Dutch. Cite the guide when you can.'],
      ['human', 'Hot?'],
      ['ai', 'Happy to help with Kettle.'],
    ]);

    // The editor opened on the latest; another client commits meanwhile; the page's commit is a 409.
    await page.getByTestId('edit-commit').click();
    await draft(2).getByTestId('message-template-input').fill('Glad to help with {product}!');
    await client.pushPrompt(names.chat, { object: v1 });
    const other = await latestHash(names.chat);
    await dialog.getByTestId('dialog-confirm').click();
    const conflict = dialog.getByTestId('commit-conflict');
    await expect.poll(() => conflict.getByTestId('conflict-latest').textContent()).toBe(other.slice(0, 8));
    expect(await conflict.textContent()).toMatch(/Not committed: this prompt has a newer commit\./);
    expect(await conflict.textContent()).toMatch(/The API said: .*is not the latest commit/);
    // Only "commit on top of the newer one after all" is offered, beside Cancel.
    expect(await dialog.getByTestId('dialog-confirm').count()).toBe(0);
    expect(await dialog.getByTestId('commit-on-latest').textContent()).toBe(
      `Commit on top of ${other.slice(0, 8)} anyway`,
    );
    expect(await draft(2).getByTestId('message-template-input').inputValue()).toBe('Glad to help with {product}!');
    await shot('08-stale-parent');
    await dialog.getByTestId('commit-on-latest').click();
    await expect.poll(() => page.getByTestId('dialog').count()).toBe(0);
    await expect.poll(() => page.getByTestId('commit-row').count()).toBe(5);
    const [top] = (await call(`/commits/-/${names.chat}/?limit=1`)).commits;
    expect(top.parent_commit_hash).toBe(other);
    expect(JSON.stringify(top.manifest)).toContain('Glad to help with {product}!');
    hashes.push(other, top.commit_hash);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a prompt pushed with its model shows the model’s settings; a string prompt its template', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await open(`/ui/prompts/${names.model}`);
    const model = page.getByTestId('model-config');
    await expect.poll(() => model.locator('h3').textContent()).toBe('Model ChatOpenAI');
    const params = await model
      .getByTestId('model-param')
      .evaluateAll((ps) => ps.map((p) => [p.querySelector('dt')?.textContent, p.querySelector('dd')?.textContent]));
    expect(params).toEqual(
      expect.arrayContaining([
        ['model', 'gpt-4o-mini'],
        ['temperature', '0.2'],
        ['openai_api_key', 'secret OPENAI_API_KEY'],
      ]),
    );
    expect(await page.content()).not.toContain('sk-never-shown');
    expect((await messages(page)).map(([role]) => role)).toEqual(['system', 'human']);
    await shot('09-with-model');

    await page.goto(`${tracingUrl()}/ui/prompts/${names.string}`);
    const template = page.getByTestId('string-template');
    await expect.poll(() => template.textContent()).toBe('Summarize {text} in {count} words.');
    expect(await template.getByTestId('template-variable').allTextContents()).toEqual(['{text}', '{count}']);
    expect(await page.getByTestId('manifest').getAttribute('data-kind')).toBe('string');
    await shot('10-string-prompt');

    // A prompt without commits (made by the API) gets its first from its page: a string template.
    const bare = `bare-${stamp}`;
    await call('/repos', { method: 'POST', json: { repo_handle: bare } });
    await page.goto(`${tracingUrl()}/ui/prompts/${bare}`);
    await page.getByTestId('first-commit').click();
    const dialog = page.getByTestId('dialog');
    await dialog.getByTestId('kind-string').check();
    await dialog.getByTestId('format-select').selectOption('mustache');
    await dialog.getByTestId('string-template-input').fill('Translate {{text}} into {{language}}.');
    expect(await dialog.getByTestId('editor-variables').locator('code').allTextContents()).toEqual([
      'text',
      'language',
    ]);
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => template.textContent()).toBe('Translate {{text}} into {{language}}.');
    expect(await template.getByTestId('template-variable').allTextContents()).toEqual(['{{text}}', '{{language}}']);
    const first = await pull<PromptTemplate>(bare, { client });
    expect(await first.format({ text: 'hallo', language: 'English' })).toBe('Translate hallo into English.');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the diff of two commits: by default the latest and its parent; chosen from the commits; unified and side by side', async (context) => {
    if (noBrowser || hashes.length < 3) return context.skip(noBrowser ?? 'no commits pushed by the page');
    const { page, problems, shot } = await open(`/ui/prompts/${names.chat}`);
    await commitShown(page);
    await expect.poll(() => page.getByTestId('commit-row').count()).toBe(5);
    await shot('13-prompt-commits');
    // The page's commit (hashes[2]) against its parent, from its row's Diff link.
    await commitRow(page, hashes[2]!).getByTestId('commit-diff').click();
    expect(new URL(page.url()).pathname).toBe(`/ui/prompts/${names.chat}/compare`);
    expect(new URL(page.url()).searchParams.get('from')).toBe(hashes[1]);
    const lines = (change: string) =>
      page.locator(`[data-testid="diff-line"][data-change="${change}"] .diff-text`).allTextContents();
    await expect
      .poll(() => lines('removed'))
      .toEqual(['You answer questions about {product} in {language}, briefly and kindly.']);
    expect(await lines('added')).toEqual([
      'You answer questions about {product} in {language}. Cite the {manual} when you can.',
      '',
      '[ai]',
      'Happy to help with {product}.',
    ]);
    expect(await page.getByTestId('diff-summary').textContent()).toBe(
      `${hashes[1]!.slice(0, 8)} → ${hashes[2]!.slice(0, 8)}: +4 −1 lines`,
    );
    // The words that changed are marked inside the changed line.
    expect((await page.locator('.diff-added .diff-word').allTextContents()).join('')).toContain('Cite the {manual}');
    expect((await page.locator('.diff-removed .diff-word').allTextContents()).join('')).toContain('briefly and kindly');
    await shot('11-diff-unified');
    await page.getByTestId('diff-split').click();
    await expect.poll(() => page.getByTestId('diff-split-table').isVisible()).toBe(true);
    await shot('12-diff-split');

    // The tab's defaults: the latest and its parent; then two commits chosen.
    await page.getByTestId('tab-prompt').click();
    await page.getByTestId('tab-diff').click();
    await expect.poll(() => page.getByTestId('diff-to').inputValue()).toBe(hashes[4]);
    expect(await page.getByTestId('diff-from').inputValue()).toBe(hashes[3]);
    await page.getByTestId('diff-from').selectOption(hashes[0]!);
    await page.getByTestId('diff-to').selectOption(hashes[1]!);
    await expect
      .poll(() => page.getByTestId('diff-summary').textContent())
      .toBe(`${hashes[0]!.slice(0, 8)} → ${hashes[1]!.slice(0, 8)}: +1 −1 lines`);
    expect(new URL(page.url()).searchParams.get('from')).toBe(hashes[0]);
    await page.getByTestId('diff-swap').click();
    await expect
      .poll(() => page.getByTestId('diff-summary').textContent())
      .toBe(`${hashes[1]!.slice(0, 8)} → ${hashes[0]!.slice(0, 8)}: +1 −1 lines`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('past a hundred prompts, and past a hundred commits of one, Show more reads the next hundred', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const [many] = (await createWorkspaces(1)) as [Workspace];
    const post = async (path: string, json: unknown): Promise<any> => {
      const res = await api(path, { method: 'POST', apiKey: many.apiKey, json });
      expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    // Created oldest first; the list is newest change first, so "many-000" is the last one listed.
    const promptNames = Array.from({ length: 102 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
    for (const name of promptNames) await post('/repos', { repo_handle: name, description: null });
    // 101 commits of the newest: its first commit is the last one listed.
    const commitHashes: string[] = [];
    for (let i = 0; i < 101; i++) {
      const manifest = JSON.parse(JSON.stringify(ChatPromptTemplate.fromMessages([['human', `Question ${i}: {q}`]])));
      const { commit } = await post('/commits/-/many-101', { manifest, parent_commit: commitHashes.at(-1) ?? null });
      commitHashes.push(commit.commit_hash);
    }

    const { page, problems, shot } = await explorer!.open(many.apiKey, '/ui/prompts');
    page.setDefaultTimeout(15_000);
    await expect.poll(() => page.getByTestId('prompt-row').count()).toBe(100);
    expect(await page.getByTestId('prompt-name').first().textContent()).toBe('many-101');
    expect(await page.locator('.pager-note').textContent()).toBe('100 of 102 prompts');
    await page.getByTestId('prompts-more').click();
    await expect.poll(() => page.getByTestId('prompt-row').count()).toBe(102);
    expect(await page.getByTestId('prompt-name').last().textContent()).toBe('many-000');
    expect(await page.getByTestId('prompts-more').count()).toBe(0);
    await shot('14-prompts-show-more');

    await promptRow(page, 'many-101').getByTestId('prompt-name').click();
    await commitShown(page);
    await expect.poll(() => page.getByTestId('commit-row').count()).toBe(100);
    expect(await page.getByTestId('commit-row').first().getAttribute('data-commit-hash')).toBe(commitHashes.at(-1));
    await page.getByTestId('commits-more').click();
    await expect.poll(() => page.getByTestId('commit-row').count()).toBe(101);
    expect(await page.getByTestId('commit-row').last().getAttribute('data-commit-hash')).toBe(commitHashes[0]);
    expect(await page.getByTestId('commits-more').count()).toBe(0);
    await shot('15-commits-show-more');
    expect(problems).toEqual([]);
    await page.close();
  });
});
