import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as client from '../src/index.js';
import { SvcClient } from '../src/index.js';

/** The README a user of the package reads: every method of the client is in it, written as code. */
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** `name(…)`, `name` or `client.name` in a code span. */
const namedInCode = (name: string) => new RegExp(`\`(?:[\\w.]*\\.)?${name}(?:\\(|\`)`).test(README);

const METHODS = Object.getOwnPropertyNames(SvcClient.prototype).filter((name) => name !== 'constructor');
const FUNCTIONS = Object.entries(client)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name);

describe('the README lists the whole public surface', () => {
  it('finds the methods (the prototype still holds them)', () => {
    expect(METHODS).toEqual(expect.arrayContaining(['score', 'iterScores', 'statement', 'lastRateLimit']));
  });

  it('names every public method of SvcClient', () => {
    expect(METHODS.filter((name) => !namedInCode(name))).toEqual([]);
  });

  it('names every function and class the package exports (in prose or in an example)', () => {
    expect(FUNCTIONS.filter((name) => !new RegExp(`\\b${name}\\b`).test(README))).toEqual([]);
  });
});
