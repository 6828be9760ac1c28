// platform/ports.ts against real sockets: a port another program holds (here, a net server
// of this test process) is reported with its number, the holder's pid and command, and the
// variable that moves it; two of ours on one port clash; a free port and port 0 pass.
import { createServer, type Server } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { bindProblem, portHolders, portProblems, type PortNeed } from '../../platform/ports.ts';
import { freePort } from '../support/serviceProcess.ts';

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port held by a listening server of this process, standing for another program. */
async function holdPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as { port: number }).port;
}

const need = (port: number, variable = 'AGENT_SERVER_PORT', host = '127.0.0.1'): PortNeed => ({
  host,
  port,
  variable,
  purpose: 'the agent server',
});

test('a taken port is named with its holder (pid and command) and the variable that moves it', async () => {
  const port = await holdPort();
  const problems = await portProblems([need(port)]);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toContain(
    `port ${port} on 127.0.0.1 (the agent server) is in use by pid ${process.pid} (${process.execPath}`,
  );
  expect(problems[0]).toContain('AGENT_SERVER_PORT');
});

test('a server on all addresses holds the port for 127.0.0.1 too', async () => {
  const port = await holdPort('0.0.0.0');
  expect(await portProblems([need(port)])).toEqual([expect.stringContaining(`pid ${process.pid}`)]);
});

test('every problem at once: each taken port, and two of ours on one port', async () => {
  const [taken, other, shared] = [await holdPort(), await holdPort(), await freePort()];
  const problems = await portProblems([
    need(taken, 'TRACING_PORT'),
    need(shared, 'AGENT_SERVER_PORT'),
    need(other, 'A2A_EXAMPLE_AGENT_PORT'),
    need(shared, 'TRACING_PORT', '0.0.0.0'),
  ]);
  expect(problems).toHaveLength(3);
  expect(problems).toContainEqual(
    expect.stringMatching(new RegExp(`^AGENT_SERVER_PORT and TRACING_PORT both ask for port ${shared}`)),
  );
  expect(problems).toContainEqual(expect.stringContaining(`port ${taken} `));
  expect(problems).toContainEqual(expect.stringContaining(`port ${other} `));
});

test('a free port, and port 0 (any free port), pass', async () => {
  expect(
    await portProblems([need(await freePort()), need(0, 'TRACING_PORT'), need(0, 'A2A_EXAMPLE_AGENT_PORT')]),
  ).toEqual([]);
});

test("an address that is not this machine's is named as such", async () => {
  // 192.0.2.0/24 is TEST-NET-1: never assigned to a machine.
  expect(await portProblems([need(await freePort(), 'AGENT_SERVER_PORT', '192.0.2.1')])).toEqual([
    expect.stringContaining('192.0.2.1 is not an address of this machine'),
  ]);
});

test('the failure of a real listen() becomes the same message; other errors are not ours to explain', async () => {
  const port = await holdPort();
  const second = createServer();
  const error = await new Promise<NodeJS.ErrnoException>((resolve) =>
    second.once('error', resolve).listen(port, '127.0.0.1'),
  );
  expect(error.code).toBe('EADDRINUSE');
  expect(bindProblem(need(port), error)).toMatch(
    new RegExp(`port ${port} .* in use by pid ${process.pid} .*AGENT_SERVER_PORT`),
  );
  expect(bindProblem(need(port), undefined)).toBeUndefined();
});

test('portHolders finds the listening process through /proc', async () => {
  const port = await holdPort();
  expect(portHolders(port)).toEqual([
    { uid: process.getuid!(), pid: process.pid, command: expect.stringContaining(process.execPath) },
  ]);
  expect(portHolders(await freePort())).toEqual([]);
});
