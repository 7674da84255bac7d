import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { resolveProviderNames } from '../../src/services/scores/provider-names.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';

/**
 * Providers named as the agent tools name them (issue 33: the verb the tools call, which resolved names over the
 * public snapshot themselves): an id or a name to one provider with an indicator in force, several candidates for a
 * name that matches several, a refusal naming every name that matches none, and the record at a past instant.
 */
describe.each(engines)('resolveProviderNames on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);
  const ctx = () => ctxOf(store, { clock });
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `input.provider_names.${i}`);

  /** The worked example (Example Sats Lending), the low-band one named Example Harbour Lending, multiple caps. */
  const NAMED = {
    sats: () => exampleDocument('worked-example'),
    harbour: () => exampleDocument('low-band', { provider: { name: 'Example Harbour Lending' } }),
    quickyield: () => exampleDocument('multiple-caps'),
  };

  async function publish(...names: (keyof typeof NAMED)[]): Promise<string[]> {
    const ids: string[] = [];
    for (const name of names) {
      clock.advance(60_000);
      const document = NAMED[name]();
      await publishIndicator(ctx(), { document, framework, approvedAt: clock.now().toISOString() });
      ids.push(document.provider.id);
    }
    return ids;
  }

  it('resolves ids (in any case) and names (folded, exact first) to the providers, in the order given', async () => {
    clock.set(AFTER_EXAMPLES);
    const [sats, harbour] = await publish('sats', 'harbour');
    const names = ['example sats LENDING', (harbour ?? '').toUpperCase(), 'Sats'];
    expect(await resolveProviderNames(ctx(), { names, paths: paths(3) })).toEqual({ ids: [sats, harbour, sats] });
  });

  it('a name that matches several providers is an ambiguity listing the candidates, best match first', async () => {
    clock.set(AFTER_EXAMPLES);
    await publish('sats', 'harbour', 'quickyield');
    const resolved = await resolveProviderNames(ctx(), { names: ['Lending'], paths: paths(1) });
    expect(resolved).toEqual({
      ambiguity: {
        status: 'ambiguous',
        detail: '"Lending" matches 2 providers: ask which one is meant, then call again with its name or id',
        names: [
          {
            provider_name: 'Lending',
            total: 2,
            candidates: expect.arrayContaining([
              expect.objectContaining({ name: 'Example Sats Lending' }),
              expect.objectContaining({ name: 'Example Harbour Lending' }),
            ]),
          },
        ],
      },
    });
  });

  it('names that match no provider in force are refused together, each at its path; a withdrawn one is gone', async () => {
    clock.set(AFTER_EXAMPLES);
    const [sats] = await publish('sats');
    clock.advance(60_000);
    await withdrawProvider(ctxOf(store, { clock, by: 'Pat Approver' }), { providerId: sats ?? '', reason: 'closed' });
    const error = await resolveProviderNames(ctx(), {
      names: ['Example Sats Lending', 'Nobody Lends'],
      paths: paths(2),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('not_found');
    expect((error as ServiceError).problems).toEqual([
      {
        path: 'input.provider_names.0',
        message: '"Example Sats Lending" matches no provider with a published Risk Indicator',
      },
      { path: 'input.provider_names.1', message: '"Nobody Lends" matches no provider with a published Risk Indicator' },
    ]);
  });

  it('with asOf, names are matched among the providers in force at that instant', async () => {
    clock.set(AFTER_EXAMPLES);
    const [sats] = await publish('sats');
    const then = clock.now().toISOString();
    await publish('harbour');
    const input = { names: ['Example Harbour Lending'], paths: ['input.provider_name'] };
    await expect(resolveProviderNames(ctx(), { ...input, asOf: then })).rejects.toThrow(
      `"Example Harbour Lending" matches no provider with a Risk Indicator in force at ${then}`,
    );
    expect(
      await resolveProviderNames(ctx(), { names: ['Lending'], paths: ['input.provider_name'], asOf: then }),
    ).toEqual({
      ids: [sats],
    });
  });
});
