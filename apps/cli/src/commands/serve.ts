import type { Config, RunningServer } from '@svc/api';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../errors.js';
import { setExitCode, writeErr } from '../io.js';
import { type Api, type Environment, explain, operations, warnOpenMode } from '../operations.js';
import { printJsonLine, printLines, withOutputOptions } from '../output.js';

interface ServeOptions {
  json?: boolean;
  port?: number;
  host?: string;
}

export function registerServe(program: Command, env: Environment): void {
  withOutputOptions(
    program
      .command('serve')
      .description('run the HTTP API: migrate the store, listen, and stop gracefully on SIGTERM or SIGINT')
      .option('--port <n>', 'port to listen on, 0 for any free port (default: PORT, or 8080)', portNumber)
      .option('--host <address>', 'address to listen on (default: HOST, or 127.0.0.1)', hostAddress),
  ).action(async (options: ServeOptions) => {
    setExitCode(await serve(env, options));
  });
}

async function serve(env: Environment, options: ServeOptions): Promise<number> {
  const ops = await operations(env);
  const { api, config } = ops;
  const settings: Config = { ...config, port: options.port ?? config.port, host: options.host ?? config.host };
  // Registered before listening, so a signal that arrives during start-up still stops the server.
  const stop = stopSignals();
  let running: RunningServer;
  try {
    running = await api.startServer(settings);
  } catch (error) {
    stop.dispose();
    throw listenFailure(explain(api, error, settings), settings, api);
  }
  const metricsUrl = running.metricsUrl ? `${running.metricsUrl}/metrics` : null;
  if (options.json)
    printJsonLine({
      url: running.url,
      ...(metricsUrl ? { metrics_url: metricsUrl } : {}),
      ratings_url: `${running.url}/`,
    });
  else printLines(`listening on ${running.url}`, ...(metricsUrl ? [`metrics on ${metricsUrl}`] : []));
  // After the URL, which is the first line a script reads.
  if (await api.isOpenMode({ store: running.services.store })) {
    warnOpenMode(ops);
    running.services.logger.warn(api.OPEN_MODE_WARNING);
  }
  // Last, the address a person opens in a browser.
  if (!options.json) printLines(`ratings page: open ${running.url}/ in a browser`);
  const signal = await stop.received;
  // A second signal while closing is not caught: it ends the process at once.
  writeErr(`${signal}: finishing the requests in flight, then stopping\n`);
  await running.close();
  writeErr('stopped\n');
  return 0;
}

/** The first SIGTERM or SIGINT; the handlers are removed once it arrives (or on dispose). */
export function stopSignals(): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let dispose = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      dispose();
      resolve(signal);
    };
    dispose = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  return { received, dispose };
}

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no such address on this machine',
  ENOTFOUND: 'unknown host name',
};

function listenFailure(error: unknown, config: Config, api: Api): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined || LISTEN_REASONS[code] === undefined) return error;
  // The metrics listener's own port (SVC_METRICS_PORT) is named as such.
  const where =
    error instanceof api.MetricsListenError
      ? `for metrics on ${error.host}:${error.port} (SVC_METRICS_HOST, SVC_METRICS_PORT)`
      : `on ${config.host}:${config.port}`;
  return new CliError('cannot_listen', `cannot listen ${where}: ${LISTEN_REASONS[code]}`, { cause: error });
}

function portNumber(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return port;
}

function hostAddress(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must be a host name or an IP address');
  return value;
}
