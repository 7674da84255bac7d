import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptTerms,
  type Env,
  embedded,
  freshSchema,
  postgresAvailable,
  type Served,
  serve,
  svcIn,
  svcJsonIn,
} from './operations.js';
import { tempDir } from './svc.js';

/**
 * Every provider id, `ri_` id and `ra_` id the documentation prints as an
 * example must answer against the demo data (`svc db seed --demo`), and the
 * answers docs/api.md prints for the demo are what it answers. The ids are read
 * from the files by pattern, so an edited example is checked too.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC_FILES = [
  'README.md',
  'docs/api.md',
  'packages/client/README.md',
  'packages/client-python/README.md',
  'apps/api/src/pages/llms.ts',
] as const;

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const RI = /\bri_[0-9a-f]{24}\b/g;
const RA = /\bra_[0-9a-f]{24}\b/g;
/** A request id is a UUID too: lines that print one are not about providers. */
const REQUEST_ID_LINE = /request_id|x-request-id/i;
/** The one id the docs use to show a 404 (the client README's error example): it must stay unknown. */
const NOT_FOUND_EXAMPLES = new Set(['0f0f0f0f-0000-4000-8000-000000000000']);

interface DocIds {
  providers: Map<string, string>;
  indicators: Map<string, string>;
  actions: Map<string, string>;
}

/** The ids of a text, each with where it was first seen. */
function idsIn(name: string, text: string, into: DocIds): void {
  for (const [n, line] of text.split('\n').entries()) {
    const where = `${name}:${n + 1}`;
    if (!REQUEST_ID_LINE.test(line))
      for (const id of line.match(UUID) ?? []) if (!into.providers.has(id)) into.providers.set(id, where);
    for (const id of line.match(RI) ?? []) if (!into.indicators.has(id)) into.indicators.set(id, where);
    for (const id of line.match(RA) ?? []) if (!into.actions.has(id)) into.actions.set(id, where);
  }
}

async function docIds(llmsTxt: string): Promise<DocIds> {
  const ids: DocIds = { providers: new Map(), indicators: new Map(), actions: new Map() };
  for (const file of DOC_FILES) idsIn(file, await readFile(join(ROOT, file), 'utf8'), ids);
  idsIn('/llms.txt', llmsTxt, ids);
  return ids;
}

/** The JSON blocks of a Markdown text that parse, each with the line it starts on and the text before it. */
function jsonBlocks(text: string): { line: number; before: string; value: unknown }[] {
  const blocks: { line: number; before: string; value: unknown }[] = [];
  for (const m of text.matchAll(/^```json\n([\s\S]*?)^```$/gm)) {
    const start = m.index ?? 0;
    try {
      const value: unknown = JSON.parse(m[1] ?? '');
      blocks.push({ line: text.slice(0, start).split('\n').length, before: text.slice(0, start), value });
    } catch {
      // An abridged example (`...`) is not JSON and shows no answer to compare.
    }
  }
  return blocks;
}

/** An action as the docs print it: its signature is the demo store's own (every store signs with its own key). */
const withoutSignature = ({ signature: _, ...rest }: Record<string, unknown>) => rest;

const engines = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(engines)('the ids the docs print, against the demo data (%s)', (engine) => {
  let vars: Env;
  let served: Served;
  let key: string;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (engine === 'sqlite') vars = await embedded();
    else {
      const schema = await freshSchema();
      drop = schema.drop;
      vars = { DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    }
    expect((await svcIn(vars, 'db', 'seed', '--demo')).status).toBe(0);
    served = await serve(vars, '--port', '0');
    const { workspace_id } = (await svcJsonIn<{ workspace_id: string }>(vars, 'workspace', 'create', 'Docs')).json;
    await acceptTerms(vars, workspace_id);
    key = (await svcJsonIn<{ key: string }>(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'ENTERPRISE'))
      .json.key;
  });

  afterAll(async () => {
    if (served && served.child.exitCode === null) await served.stop();
    await drop?.();
  });

  const get = (path: string) => fetch(`${served.url}${path}`, { headers: { 'x-api-key': key } });

  it('finds example ids in the docs (the pattern still matches what they print)', async () => {
    const ids = await docIds(await (await get('/llms.txt')).text());
    expect(ids.providers.size).toBeGreaterThanOrEqual(2);
    expect(ids.indicators.size).toBeGreaterThanOrEqual(1);
    expect(ids.actions.size).toBeGreaterThanOrEqual(1);
  });

  it('every provider id answers its current indicator and its history (the 404 example stays unknown)', async () => {
    const ids = await docIds(await (await get('/llms.txt')).text());
    const answers: Record<string, number> = {};
    const expected: Record<string, number> = {};
    for (const [id, where] of ids.providers) {
      answers[`${where} ${id}`] = (await get(`/api/v1/scores/${id}`)).status;
      expected[`${where} ${id}`] = NOT_FOUND_EXAMPLES.has(id) ? 404 : 200;
      if (NOT_FOUND_EXAMPLES.has(id)) continue;
      answers[`${where} ${id} history`] = (await get(`/api/v1/scores/${id}/history`)).status;
      expected[`${where} ${id} history`] = 200;
    }
    expect(answers).toEqual(expected);
  });

  it('every ri_ id has a verification page and a computation package', async () => {
    const ids = await docIds(await (await get('/llms.txt')).text());
    const answers: Record<string, number[]> = {};
    for (const [id, where] of ids.indicators) {
      answers[`${where} ${id}`] = [
        (await get(`/verify/${id}`)).status,
        (await get(`/api/v1/computation/${id}`)).status,
      ];
    }
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((k) => [k, [200, 200]])));
  });

  it('every ra_ id is a rating action of the demo, with its signed statement', async () => {
    const ids = await docIds(await (await get('/llms.txt')).text());
    const answers: Record<string, number> = {};
    for (const [id, where] of ids.actions) {
      answers[`${where} ${id}`] = (await get(`/api/public/rating-actions/${id}/statement`)).status;
    }
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((k) => [k, 200])));
  });

  it('an action docs/api.md prints with a real id is the one the feed serves, but for its signature', async () => {
    const api = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    const shown = jsonBlocks(api)
      .map((b) => b.value as Record<string, unknown>)
      .filter((v) => typeof v.id === 'string' && /^ra_[0-9a-f]{24}$/.test(v.id));
    expect(shown.length).toBeGreaterThanOrEqual(1);
    for (const action of shown) {
      const feed = (await (
        await get(`/api/public/rating-actions?provider_id=${String(action.provider_id)}`)
      ).json()) as { data: Record<string, unknown>[] };
      const served = feed.data.find((a) => a.id === action.id);
      expect(served, String(action.id)).toBeDefined();
      expect(withoutSignature(action)).toEqual(withoutSignature(served ?? {}));
    }
  });

  it('the withdrawal docs/api.md prints is an entry of the history its example asks for', async () => {
    const api = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    const asked = /\$SVC(\/api\/v1\/scores\/[0-9a-f-]{36}\/history\?limit=\d+)"/.exec(api)?.[1];
    expect(asked).toBeDefined();
    const withdrawal = jsonBlocks(api).find(
      (b) => (b.value as { entry_type?: unknown }).entry_type === 'withdrawal',
    )?.value;
    expect(withdrawal).toBeDefined();
    const history = (await (await get(asked as string)).json()) as { data: unknown[] };
    expect(history.data).toContainEqual(withdrawal);
  });

  it('the transitions example answers what docs/api.md prints, and shows ratings moving', async () => {
    const api = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    const asked = /\$SVC(\/api\/public\/statistics\/transitions\?from=[0-9-]+&to=[0-9-]+)"/.exec(api)?.[1];
    expect(asked).toBeDefined();
    const after = api.indexOf(asked as string);
    const shown = jsonBlocks(api).find((b) => b.before.length > after)?.value as {
      summary: Record<string, number>;
    };
    const res = await get(asked as string);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(shown);
    // An all-diagonal matrix would show nothing of what the endpoint is for.
    const { upgraded = 0, downgraded = 0, withdrawn = 0 } = shown.summary;
    expect(upgraded + downgraded + withdrawn).toBeGreaterThan(0);
  });

  it('`svc verify` on the package of the docs prints the line docs/api.md shows', async () => {
    const api = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    const shown = /# (reproduced: (ri_[0-9a-f]{24}) \(DCRF v1\.0\), result sha256 [0-9a-f]+)\.\.\./.exec(api);
    expect(shown).not.toBeNull();
    const [, line, id] = shown as RegExpExecArray;
    const response = await get(`/api/v1/computation/${id}`);
    expect(response.status).toBe(200);
    const file = join(await tempDir(), 'package.json');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const run = await svcIn({}, 'verify', file);
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith(line as string)).toBe(true);
  });
});
