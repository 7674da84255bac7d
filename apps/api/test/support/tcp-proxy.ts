import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL, Redis), to take it away and
 * bring it back: `stop` closes the port and every connection (the server is down), `start` listens on
 * the same port again (it is back), `hold` keeps connections open but delivers nothing until `release`
 * (it hangs), `blackhole` drops every connection and accepts new ones without ever forwarding a byte
 * (it accepts but never answers), and `forward` drops every connection and forwards on new ones.
 */
export class TcpProxy {
  port = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | 'hold' | 'blackhole' = 'forward';
  private held: (() => void)[] = [];
  private readonly target: URL;

  /** `targetUrl`: the real server's URL (postgres://…, redis://…). */
  constructor(targetUrl: string) {
    this.target = new URL(targetUrl);
  }

  /** The target URL with the proxy in place of the server. */
  get url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Listens (on the same port as before, after a stop) and forwards. */
  async start(): Promise<void> {
    this.mode = 'forward';
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Closes the port and destroys every connection: new ones are refused. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.dropAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Whether the port is open. */
  get listening(): boolean {
    return this.server !== null;
  }

  /** Keeps every connection open but delivers nothing on them (nor on new ones) until `release`. */
  hold(): void {
    this.mode = 'hold';
  }

  /** Delivers what was held and forwards again. */
  release(): void {
    this.mode = 'forward';
    for (const deliver of this.held.splice(0)) deliver();
  }

  /** Drops every connection and accepts new ones without ever forwarding a byte. */
  blackhole(): void {
    this.dropAll();
    this.mode = 'blackhole';
  }

  /** Drops every connection (held ones too, with what they held) and forwards on new ones. */
  forward(): void {
    this.dropAll();
    this.mode = 'forward';
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'blackhole') return;
    const port = Number(this.target.port || (this.target.protocol === 'redis:' ? 6379 : 5432));
    const upstream = connect(port, this.target.hostname.replace(/^\[|\]$/g, ''));
    this.track(upstream);
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (this.mode === 'forward') to.write(chunk);
        else this.held.push(() => to.write(chunk));
      });
    relay(client, upstream);
    relay(upstream, client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.held = [];
  }
}
