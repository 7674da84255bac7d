// Scores documents with the BUILT engine, in a Worker thread or a child process, and reports the
// canonical outputs together with the time zone and locale it really ran under.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

const engine = await import(new URL('../../dist/index.js', import.meta.url).href);

function run(documentsText) {
  const framework = engine.currentFramework();
  const options = Intl.DateTimeFormat().resolvedOptions();
  return {
    environment: {
      tz: process.env.TZ ?? null,
      timeZone: options.timeZone,
      locale: options.locale,
      // Offsets at the epoch and mid-2026: both depend on the time zone the process really uses.
      offsets: [new Date(0).getTimezoneOffset(), new Date('2026-06-30T00:00:00Z').getTimezoneOffset()],
    },
    outputs: JSON.parse(documentsText).map((document) => ({
      indicator: engine.canonicalJson(engine.score(document, framework)),
      package: engine.serializePackage(engine.buildPackage(document, framework)),
    })),
  };
}

if (!isMainThread && parentPort) {
  parentPort.postMessage(run(workerData));
} else {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  process.stdout.write(JSON.stringify(run(Buffer.concat(chunks).toString('utf8'))));
}
