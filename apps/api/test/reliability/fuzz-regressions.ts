import type { ErrorCode } from '@svc/contracts';
import type { Draft } from './fuzz-requests.js';

/** Requests the fuzzer once found answered against the contract, replayed exactly on every run. */

export interface Regression {
  /** The rule, as the test names it. */
  rule: string;
  draft(known: Record<string, readonly unknown[]>): Draft;
  status: number;
  /** The problem's code, for a failure. */
  code?: ErrorCode;
}

const MCP_ACCEPT = 'application/json, text/event-stream';

function draft(operationId: string, method: string, target: string, extra: Partial<Draft> = {}): Draft {
  return {
    operationId,
    method,
    target,
    key: 'ENTERPRISE',
    keyNoise: '',
    headers: {},
    body: undefined,
    variant: [],
    ...extra,
  };
}

const json = (value: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: { bytes: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), chunked: false },
});

const first = (known: Record<string, readonly unknown[]>, name: string) => String(known[name]?.[0]);

const NO_QUERY = [
  ['getStatus', '/api/v1/status'],
  ['listPublicScores', '/api/public/scores'],
  ['getChangelogAtom', '/api/public/changelog.atom'],
  ['getRatingActionsAtom', '/api/public/rating-actions.atom'],
  ['listWebhooks', '/api/v1/webhooks'],
  ['getMcpManifest', '/api/mcp'],
] as const;

export const REGRESSIONS: Regression[] = [
  ...NO_QUERY.map(
    ([operationId, path]): Regression => ({
      rule: `${operationId} answers an unknown query parameter with its documented 400 problem`,
      draft: () => draft(operationId, 'GET', `${path}?x=1`),
      status: 400,
      code: 'invalid_request',
    }),
  ),
  ...['__proto__', 'constructor', 'toString'].map(
    (name): Regression => ({
      rule: `an agent tool call naming the tool "${name}" (an Object.prototype member) gets a 400 problem, not a 500`,
      draft: () =>
        draft('callMcpTool', 'POST', '/api/mcp', json({ tool_name: name, input: { provider_names: ['sats'] } })),
      status: 400,
      code: 'invalid_request',
    }),
  ),
  ...(
    [
      ['listRatingActions', '/api/public/rating-actions'],
      ['getChangelog', '/api/public/changelog'],
    ] as const
  ).map(
    ([operationId, path]): Regression => ({
      // Found from outside: {"n":2147483648} was a 500 on PostgreSQL (out of range for integer), a 200 on SQLite.
      rule: `${operationId} answers a cursor past what the store's sequence column holds with a 400 problem`,
      draft: () => draft(operationId, 'GET', `${path}?cursor=eyJuIjoyMTQ3NDgzNjQ4fQ`, { key: 'absent' }),
      status: 400,
      code: 'invalid_request',
    }),
  ),
  {
    rule: "getScoreHistory answers a cursor past what the store's sequence column holds with a 400 problem",
    draft: (known) =>
      draft(
        'getScoreHistory',
        'GET',
        `/api/v1/scores/${first(known, 'providerId')}/history?cursor=eyJuIjoyMTQ3NDgzNjQ4fQ`,
      ),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: 'a coverage request naming a provider with a terminal escape gets a 400 problem, and is not stored',
    draft: () =>
      draft('requestScore', 'POST', '/api/public/score-request', {
        ...json({ provider_name: 'Evil\u001b[2J Lending' }),
        key: 'absent',
      }),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: 'a webhook description with a bidi override gets a 400 problem, and nothing is registered',
    draft: () =>
      draft('createWebhook', 'POST', '/api/v1/webhooks', {
        ...json({ url: 'https://93.184.216.34/hook', events: ['issuance.updated'], description: 'ops \u202eteam' }),
      }),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: 'a provider memo asked for as HTML is served as a documented media type',
    draft: (known) => draft('getScoreMemo', 'GET', `/api/v1/scores/${first(known, 'providerId')}/memo?format=html`),
    status: 200,
  },
  {
    rule: 'a portfolio memo asked for as HTML is served as a documented media type',
    draft: (known) =>
      draft('portfolioMemo', 'POST', '/api/v1/portfolio/memo?format=html', {
        ...json({ holdings: [{ provider_id: first(known, 'providerId'), amount: 100 }] }),
      }),
    status: 200,
  },
  {
    rule: 'an MCP message whose Accept lacks text/event-stream gets a documented 406 problem, not a JSON-RPC body',
    draft: () =>
      draft(
        'callMcpTool',
        'POST',
        '/api/mcp',
        json({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' }),
      ),
    status: 406,
    code: 'not_acceptable',
  },
  {
    rule: 'a body the MCP transport does not take for a JSON-RPC message gets a 400 problem, not a JSON-RPC body',
    draft: () => draft('callMcpTool', 'POST', '/api/mcp', json({ jsonrpc: '2.0' }, { accept: MCP_ACCEPT })),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: "an MCP notification's 202 with no body is a documented answer",
    draft: () =>
      draft(
        'callMcpTool',
        'POST',
        '/api/mcp',
        json({ jsonrpc: '2.0', method: 'notifications/initialized' }, { accept: MCP_ACCEPT }),
      ),
    status: 202,
  },
  {
    rule: 'the public scores answer If-None-Match: * with a documented 304',
    draft: () =>
      draft('listPublicScores', 'GET', '/api/public/scores', { key: 'absent', headers: { 'if-none-match': '*' } }),
    status: 304,
  },
  {
    rule: 'a verification page id with a malformed percent-encoding gets a documented 400 problem',
    draft: () => draft('verifyPage', 'GET', '/verify/%zz', { key: 'absent' }),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: 'a provider page id with a malformed percent-encoding gets a documented 400 problem',
    draft: () => draft('providerPage', 'GET', '/providers/%E0%A4%A', { key: 'absent' }),
    status: 400,
    code: 'invalid_request',
  },
  {
    rule: 'a request head over 16 KiB gets a 431 problem on an API route, not a bare 431',
    draft: () => draft('getStatus', 'GET', `/api/v1/status?x=${'x'.repeat(20_000)}`),
    status: 431,
    code: 'headers_too_large',
  },
  {
    rule: 'a request head over 16 KiB gets a 431 problem on a site page, not a bare 431',
    draft: () => draft('apiReference', 'GET', `/docs?x=${'x'.repeat(20_000)}`, { key: 'absent' }),
    status: 431,
    code: 'headers_too_large',
  },
  {
    // Found by seed 851227637: the oracle wanted a 404 for an unknown path, but the head is refused before routing.
    rule: 'a request head over 16 KiB gets a 431 problem on a path no operation has',
    draft: () => draft('getScoreHistory', 'GET', `/api/v1/scores//history?cursor=${'x'.repeat(20_000)}`),
    status: 431,
    code: 'headers_too_large',
  },
];
