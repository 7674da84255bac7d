// Writes docs/methodology/<version>.md for every framework version from the built engine.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameworks, methodologyMarkdown } from '../dist/index.js';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/methodology');
for (const [version, framework] of frameworks) {
  const file = join(docsDir, `dcrf-${version}.md`);
  writeFileSync(file, methodologyMarkdown(framework));
  console.log(`wrote ${file}`);
}
