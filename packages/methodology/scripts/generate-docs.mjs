// Writes docs/methodology/<version>.md for every framework version, and the JSON Schemas of the approved-inputs
// document (under the current framework) and of the computation package to docs/schemas/, from the built engine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  approvedInputsJsonSchema,
  computationPackageJsonSchema,
  currentFramework,
  frameworks,
  jsonSchemaText,
  methodologyMarkdown,
} from '../dist/index.js';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '../../../docs');
for (const [version, framework] of frameworks) {
  const file = join(docsDir, 'methodology', `dcrf-${version}.md`);
  writeFileSync(file, methodologyMarkdown(framework));
  console.log(`wrote ${file}`);
}

const schemas = {
  'approved-inputs.json': approvedInputsJsonSchema(currentFramework()),
  'computation-package.json': computationPackageJsonSchema(),
};
mkdirSync(join(docsDir, 'schemas'), { recursive: true });
for (const [name, schema] of Object.entries(schemas)) {
  const file = join(docsDir, 'schemas', name);
  writeFileSync(file, jsonSchemaText(schema));
  console.log(`wrote ${file}`);
}
