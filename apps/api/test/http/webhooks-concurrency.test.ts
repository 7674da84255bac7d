import { WebhooksListResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { expectJson } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const WEBHOOKS = '/api/v1/webhooks';
const ListSchema = WebhooksListResponseSchema.strict();

// Nothing listens on port 65535 here; nothing here emits methodology.published, so nothing is sent anyway.
const quietBody = (path: string) => ({ url: `https://127.0.0.1:65535${path}`, events: ['methodology.published'] });

describe.each(engines)('webhook registrations arriving at once on %s', (engine) => {
  const server = useServer(engine);

  it('the same URL sent by eight requests at once is registered once: one 201, seven 400', async () => {
    const { key } = await server().issueKey('PROFESSIONAL');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => server().send('POST', WEBHOOKS, quietBody('/hook'), key)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    expect((await expectJson(await server().get(WEBHOOKS, { key }), ListSchema)).data).toHaveLength(1);
  });

  it('thirty registrations at once never take a workspace past 20 endpoints: twenty 201, ten 409', async () => {
    const { key } = await server().issueKey('PROFESSIONAL');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => server().send('POST', WEBHOOKS, quietBody(`/hooks/${n}`), key)),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(10);
    expect((await expectJson(await server().get(WEBHOOKS, { key }), ListSchema)).data).toHaveLength(20);
  });
});
