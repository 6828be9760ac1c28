// The first program in a revision's sandbox (sandbox.ts): it opens the way out, the bridge from
// HTTP_PROXY (127.0.0.1:3128, the sandbox's own loopback) to the revision's egress proxy socket,
// then runs what it was given: a module of the platform (the agent server's entry point), imported
// into this process so that its IPC channel to the deployer stays its own; or a program, spawned,
// with its exit code and signals passed through.
//   node sandboxEntry.ts <egress socket> module <file.ts>
//   node sandboxEntry.ts <egress socket> exec <program> [args…]
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { pathToFileURL } from 'node:url';
import { bridgeToSocket } from './socketBridge.ts';
import { SANDBOX_PROXY_URL } from './sandbox.ts';

const [egressSocket, kind, target, ...args] = process.argv.slice(2);
if (!egressSocket || (kind !== 'module' && kind !== 'exec') || !target) {
  console.error('usage: sandboxEntry.ts <egress socket> module <file> | exec <program> [args…]');
  process.exit(64);
}
const proxy = new URL(SANDBOX_PROXY_URL);
const bridge = await bridgeToSocket(egressSocket, proxy.hostname, Number(proxy.port));
if (kind === 'module') {
  await import(pathToFileURL(target).href);
} else {
  const child = spawn(target, args, { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.once('error', (err) => {
    console.error(`${target}: ${err.message}`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    void bridge.close();
    process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
  });
}
