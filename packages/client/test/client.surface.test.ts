import { readdirSync, readFileSync } from 'node:fs';
import { type EndpointName, endpoints } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { SvcClient } from '../src/index.js';

/** The client method of every endpoint: a `Record` over the contracts' names, so a new endpoint fails typecheck here. */
const METHOD_OF: Record<EndpointName, keyof SvcClient> = {
  listPublicScores: 'publicScores',
  listScores: 'scores',
  getScore: 'score',
  getScoreHistory: 'history',
  getMethodology: 'methodology',
  getComputation: 'computation',
  listIssuances: 'issuances',
  getStatus: 'status',
  getChangelog: 'changelog',
  getChangelogAtom: 'changelogAtom',
  listFrameworks: 'frameworks',
  getFramework: 'framework',
  requestScore: 'requestScore',
  getScoreRequest: 'scoreRequestStatus',
  getPublicationStatement: 'publicationStatement',
  getSigningKeys: 'signingKeys',
  getStatement: 'statement',
  getTransitionStatistics: 'transitions',
  getBandStatistics: 'bandCounts',
  listRatingActions: 'ratingActions',
  getRatingActionsAtom: 'ratingActionsAtom',
  getRatingActionStatement: 'ratingActionStatement',
  createWebhook: 'createWebhook',
  listWebhooks: 'listWebhooks',
  deleteWebhook: 'deleteWebhook',
  listDeliveries: 'deliveries',
  redeliver: 'redeliver',
  testWebhook: 'testWebhook',
  searchProviders: 'searchProviders',
  compareScores: 'compare',
  exportScores: 'exportCsv',
  scorePortfolio: 'portfolio',
  portfolioMemo: 'portfolioMemo',
  whatIf: 'whatIf',
  getScoreMemo: 'memo',
  getEvidenceSchedule: 'evidenceSchedule',
  getMcpManifest: 'mcpManifest',
  callMcpTool: 'callMcpTool',
};

/** The paginated lists, with the method that iterates over every item. */
const ITERATOR_OF: Partial<Record<EndpointName, keyof SvcClient>> = {
  listScores: 'iterScores',
  getScoreHistory: 'iterHistory',
  listIssuances: 'iterIssuances',
  getChangelog: 'iterChangelog',
  listRatingActions: 'iterRatingActions',
  listDeliveries: 'iterDeliveries',
  listPublicScores: 'iterPublicScores',
};

const SOURCES = new URL('../src/', import.meta.url);
const sources = readdirSync(SOURCES)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, text: readFileSync(new URL(name, SOURCES), 'utf8') }));

describe('a method for every endpoint of the contracts', () => {
  const client = new SvcClient({ baseUrl: 'http://127.0.0.1:1' });

  it.each(Object.entries(METHOD_OF))('%s is SvcClient.%s', (_, method) => {
    expect(typeof client[method]).toBe('function');
  });

  it('every paginated list (a `cursor` in its query) has an iterator', () => {
    const paginated = Object.entries(endpoints)
      .filter(([, e]) => 'query' in e && e.query !== undefined && 'cursor' in e.query.shape)
      .map(([name]) => name)
      .sort();
    expect(Object.keys(ITERATOR_OF).sort()).toEqual(paginated);
    for (const method of Object.values(ITERATOR_OF)) expect(typeof client[method]).toBe('function');
  });
});

describe('the client runs in browsers: nothing of Node.js, nothing of zod at run time', () => {
  it.each(sources)('$name imports nothing from node:', ({ text }) => {
    expect(text).not.toMatch(/from ['"]node:/);
    expect(text).not.toMatch(/\b(?:process|Buffer|require)\b[.(]/);
  });

  it.each(sources)('$name imports the contracts (and so zod) for types only', ({ text }) => {
    const imports = text.match(/^(?:import|export)[^;]*from '@svc\/contracts';/gms) ?? [];
    for (const statement of imports) expect(statement).toMatch(/^(?:import|export) type /);
  });
});
