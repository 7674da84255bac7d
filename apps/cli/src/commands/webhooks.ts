import type { Command } from 'commander';
import { io, writeErr } from '../io.js';
import {
  describeStore,
  type Environment,
  masterSecretBox,
  type Operations,
  operations,
  withMigratedStore,
  withOperator,
} from '../operations.js';
import { printJson, printJsonLine, printLines, renderTable, withOutputOptions } from '../output.js';
import { stopSignals } from './serve.js';

interface WebhooksOptions {
  json?: boolean;
}

interface DispatchOptions extends WebhooksOptions {
  once?: boolean;
}

interface ListOptions extends WebhooksOptions {
  workspace?: string;
}

/** One endpoint as `webhooks list --json` prints it. */
export function registerWebhooks(program: Command, env: Environment): void {
  const group = program
    .command('webhooks')
    .description('webhook deliveries: run the dispatcher apart from `svc serve`, list the endpoints');
  withOutputOptions(
    group
      .command('dispatch')
      .description(
        'send the due webhook deliveries from the outbox, retrying on the schedule, until SIGTERM or SIGINT (run it apart from serve with SVC_WEBHOOK_DISPATCH=false)',
      )
      .option('--once', 'send what is due now, wait for the answers, report the attempts made and exit'),
  ).action(async (options: DispatchOptions) => {
    await dispatch(env, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description("every webhook endpoint: workspace, URL, events, status and its deliveries' counts")
      .option('--workspace <id>', "only this workspace's endpoints (ws_...)"),
  ).action(async (options: ListOptions) => {
    await listEndpoints(env, options);
  });
}

async function dispatch(env: Environment, options: DispatchOptions): Promise<void> {
  const ops = await operations(env);
  // Checked here so an unusable master key is reported as such, before the store is opened.
  masterSecretBox(ops);
  if (options.once) await dispatchOnce(ops, options);
  else await dispatchUntilStopped(ops, options);
}

async function dispatchOnce(ops: Operations, options: DispatchOptions): Promise<void> {
  const { api, config } = ops;
  const attempts = await withMigratedStore(ops, async (store) => {
    // Logs go to stderr: stdout is the result.
    const dispatcher = api.createDispatcher(
      config,
      store,
      api.createLogger(config, io().stderr as NodeJS.WritableStream),
    );
    try {
      return await dispatcher.drain();
    } finally {
      await dispatcher.stop();
    }
  });
  if (options.json) printJson({ attempts });
  else printLines(`${attempts} delivery ${attempts === 1 ? 'attempt' : 'attempts'} made`);
}

async function dispatchUntilStopped(ops: Operations, options: DispatchOptions): Promise<void> {
  const { api, config } = ops;
  // Registered before the store opens, so a signal that arrives during start-up still stops the dispatcher.
  const stop = stopSignals();
  try {
    await withMigratedStore(ops, async (store) => {
      const dispatcher = api.createDispatcher(
        config,
        store,
        api.createLogger(config, io().stderr as NodeJS.WritableStream),
      );
      dispatcher.start();
      const every = config.webhooks.pollMs;
      if (options.json) printJsonLine({ dispatching: true, store: config.store.kind, poll_ms: every });
      else printLines(`dispatching webhooks from the ${describeStore(config)} (looking every ${every} ms)`);
      const signal = await stop.received;
      // A second signal while stopping is not caught: it ends the process at once.
      writeErr(`${signal}: finishing the attempts in flight, then stopping\n`);
      await dispatcher.stop();
    });
  } finally {
    stop.dispose();
  }
  writeErr('stopped\n');
}

async function listEndpoints(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const endpoints = await withOperator(ops, (ctx) =>
    ops.api.listEndpointSummaries(ctx, { workspaceId: options.workspace }),
  );
  if (options.json) {
    printJson(endpoints);
    return;
  }
  if (endpoints.length === 0) {
    printLines(options.workspace ? `workspace ${options.workspace} has no webhook endpoints` : 'no webhook endpoints');
    return;
  }
  printLines(
    renderTable(
      ['Webhook id', 'Workspace', 'URL', 'Events', 'Status', 'Pending', 'Delivered', 'Failed'],
      endpoints.map((e) => [
        e.id,
        e.workspace_id,
        e.url,
        e.events,
        e.status,
        String(e.pending),
        String(e.delivered),
        String(e.failed),
      ]),
    ),
  );
}
