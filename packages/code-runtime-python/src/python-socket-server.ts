import { createServer, type Server, type Socket } from 'node:net';
import { JsonLineReader } from '@sluice/code-runtime-kit';
import { type ChildStream, parseHelloFrame } from './wire-frames.js';

/** Receives one connection of a child, with any bytes that followed its hello line. */
export type StreamHandler = (stream: ChildStream, socket: Socket, rest: Buffer) => void;

const helloBytes = 256;
const helloTimeoutMs = 10_000;

/**
 * The host's Unix socket, in a private 0700 directory. The zygote connects three times per child
 * (control, stdout, stderr) and names the child by a random one-time token in its first line; a
 * connection with a bad line, an unknown token or a stream already taken is dropped.
 */
export class HostSocketServer {
  readonly #handlers = new Map<string, { handler: StreamHandler; taken: Set<ChildStream> }>();
  readonly #pending = new Set<Socket>();

  private constructor(
    readonly path: string,
    private readonly server: Server,
  ) {
    server.on('connection', (socket) => this.#accept(socket));
  }

  static listen(path: string): Promise<HostSocketServer> {
    return new Promise((resolve, reject) => {
      const server = createServer({ allowHalfOpen: true, pauseOnConnect: false });
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        server.on('error', () => {});
        resolve(new HostSocketServer(path, server));
      });
    });
  }

  /** Routes the connections that present `token` to `handler`, each stream once. Returns a function that stops it. */
  expect(token: string, handler: StreamHandler): () => void {
    this.#handlers.set(token, { handler, taken: new Set() });
    return () => this.#handlers.delete(token);
  }

  close(): Promise<void> {
    for (const socket of this.#pending) socket.destroy();
    this.#pending.clear();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    this.#pending.add(socket);
    const timer = setTimeout(() => socket.destroy(), helloTimeoutMs);
    timer.unref();
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      this.#pending.delete(socket);
      socket.off('data', onData);
    };
    const reader = new JsonLineReader(
      helloBytes,
      (value) => {
        if (done) return;
        finish();
        reader.stop();
        const parsed = parseHelloFrame(value);
        const entry = 'frame' in parsed ? this.#handlers.get(parsed.frame.token) : undefined;
        if (!('frame' in parsed) || entry === undefined || entry.taken.has(parsed.frame.stream)) {
          socket.destroy();
          return;
        }
        entry.taken.add(parsed.frame.stream);
        socket.pause();
        entry.handler(parsed.frame.stream, socket, rest);
      },
      () => {
        finish();
        socket.destroy();
      },
    );
    let rest: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(0x0a);
      rest = newline === -1 ? Buffer.alloc(0) : chunk.subarray(newline + 1);
      reader.push(newline === -1 ? chunk : chunk.subarray(0, newline + 1));
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.once('close', () => {
      if (!done) finish();
    });
  }
}
