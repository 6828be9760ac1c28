// A revision's way out of its sandbox: an HTTP proxy on a Unix socket in the revision's run/
// directory, which the sandbox entry bridges to HTTP_PROXY inside. It takes CONNECT tunnels (what
// fetch and HTTPS use) and absolute-URI requests (node:http with a proxy), and lets a connection
// through only where the outbound-host policy allows it: public addresses, the platform endpoints
// the deployed server needs (its tracing API, the control plane's key verification), and what the
// operator allows (DEPLOYMENT_ALLOWED_HOSTS); never the platform's brokers, databases or object
// store on loopback or private networks. Each connection goes to an address checked just before
// (the policy's lookup), so a name that resolves to a private address later is still refused.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { rm } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../../platform/logger.ts';
import type { OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';

export interface EgressProxyOptions {
  socketPath: string;
  policy: OutboundHostPolicy;
  logger: Logger;
  /** For the logs: whose proxy this is. */
  revision: { deploymentId: string; revisionId: string };
}

const CONNECT_TIMEOUT_MS = 15_000;

/** `host:port` of a CONNECT request target; null when it is not one. */
function connectTarget(target: string | undefined): { host: string; port: number } | null {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target ?? '');
  const port = Number(match?.[2]);
  return match && port >= 1 && port <= 65535 ? { host: match[1]!, port } : null;
}

export class EgressProxy {
  readonly #options: EgressProxyOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();

  constructor(options: EgressProxyOptions) {
    this.#options = options;
    this.#server = createServer((req, res) => this.#forward(req, res));
    this.#server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => this.#tunnel(req, client, head));
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  async start(): Promise<void> {
    await rm(this.#options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.socketPath, () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Opens a socket to `host:port` once the policy allows it; rejects with why not. */
  #open(host: string, port: number): Promise<Socket> {
    const { policy } = this.#options;
    const bare = host.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      // An address skips the lookup: it is checked here.
      if (isIP(bare)) {
        const why = policy.refusal(bare, port, bare);
        if (why)
          return reject(
            Object.assign(new Error(`connections to ${bare} are not allowed`), { reason: why, denied: true }),
          );
      }
      const socket = connect({ host: bare, port, lookup: policy.lookupFor(port), timeout: CONNECT_TIMEOUT_MS });
      socket.once('connect', () => {
        socket.setTimeout(0);
        resolve(socket);
      });
      socket.once('timeout', () =>
        socket.destroy(new Error(`no answer from ${host}:${port} within ${CONNECT_TIMEOUT_MS / 1000} s`)),
      );
      socket.once('error', (err: Error & { reason?: string }) =>
        reject(Object.assign(err, { denied: (err as { code?: string }).code === 'ERR_HOST_DENIED' })),
      );
    });
  }

  #refused(
    host: string,
    port: number,
    err: Error & { reason?: string; denied?: boolean },
  ): { status: number; message: string } {
    const { logger, revision } = this.#options;
    if (err.denied) {
      logger.warn(
        { ...revision, host, port, reason: err.reason },
        'deployed code: connection refused by the egress policy',
      );
      return { status: 403, message: `the deployment's egress policy does not allow connections to ${host}:${port}` };
    }
    return { status: 502, message: `cannot connect to ${host}:${port}: ${err.message}` };
  }

  #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): void {
    client.on('error', () => client.destroy());
    const target = connectTarget(req.url);
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nCONNECT needs host:port\n');
      return;
    }
    this.#open(target.host, target.port).then(
      (upstream) => {
        this.#sockets.add(upstream);
        upstream.once('close', () => this.#sockets.delete(upstream));
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
        upstream.on('error', () => client.destroy());
        client.once('close', () => upstream.destroy());
      },
      (err: Error) => {
        const { status, message } = this.#refused(target.host, target.port, err);
        client.end(
          `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\ncontent-type: text/plain\r\n\r\n${message}\n`,
        );
      },
    );
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('a proxy request names an absolute http:// URL (use CONNECT for https)\n');
      return;
    }
    const port = Number(url.port || 80);
    this.#open(url.hostname, port).then(
      (socket) => {
        const headers = { ...req.headers };
        delete headers['proxy-connection'];
        delete headers['proxy-authorization'];
        const upstream = httpRequest(
          {
            createConnection: () => socket,
            method: req.method,
            path: `${url.pathname}${url.search}`,
            headers,
            agent: false,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', (err) =>
          res.headersSent
            ? res.destroy()
            : res.writeHead(502, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
        );
        req.pipe(upstream);
      },
      (err: Error) => {
        const { status, message } = this.#refused(url.hostname, port, err);
        res.writeHead(status, { 'content-type': 'text/plain' }).end(`${message}\n`);
      },
    );
  }
}
