import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEMPLATES } from '../decision/templates.js';
import {
  anchorOf,
  buildPackage,
  canonicalJson,
  currentFramework,
  methodologyMarkdown,
  serializePackage,
  sha256Hex,
  specificationOf,
  WORKED_EXAMPLES,
} from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../../..');
const framework = currentFramework();
const page = methodologyMarkdown(framework);

describe('the text templates', () => {
  it('declare exactly the slots their text uses', () => {
    for (const [name, t] of Object.entries(TEMPLATES)) {
      const used = [...t.text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      expect(new Set(used), name).toEqual(new Set(Object.keys(t.slots)));
    }
  });

  it('name only templates that exist where a slot holds another template', () => {
    for (const t of Object.values(TEMPLATES)) {
      for (const slot of Object.values(t.slots)) {
        if (slot.format.kind === 'template') for (const of of slot.format.of) expect(TEMPLATES).toHaveProperty(of);
      }
    }
  });
});

describe('the generated specification', () => {
  it('has the sections of the authoring page, 1 to 11, and the texts as 12', () => {
    const sections = [...page.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1]));
    expect(sections).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('prints every template exactly, in a block of its own', () => {
    for (const [name, t] of Object.entries(TEMPLATES)) {
      expect(page, name).toContain(`### \`${name}\`\n\n${t.use}\n\n\`\`\`text\n${t.text}\n\`\`\``);
    }
  });

  it('prints each cap condition once and the bands with the authoring page’s edges', () => {
    for (const cap of framework.definition.hard_caps) {
      const row = page.split('\n').find((line) => line.startsWith(`| ${cap.id} |`)) ?? '';
      expect(row.startsWith(`| ${cap.id} | ${cap.label} | ${cap.condition_text} | ${cap.cap} |`), row).toBe(true);
      expect(row.split(cap.condition_text).length - 1, cap.id).toBe(1);
    }
    for (const row of [
      '| LOW | >= 80.00 |',
      '| MEDIUM | >= 65.00 and < 80.00 |',
      '| ELEVATED | >= 50.00 and < 65.00 |',
      '| HIGH | >= 35.00 and < 50.00 |',
      '| SEVERE | < 35.00 |',
    ]) {
      expect(page).toContain(row);
    }
  });

  it('gives the worked example’s package_sha256 as SHA-256 of its serialised bytes', () => {
    const bytes = serializePackage(buildPackage(WORKED_EXAMPLES.get('1.0'), framework));
    expect(page).toContain(`\`package_sha256\`: \`${sha256Hex(bytes)}\``);
    expect(page).toContain(`\`framework_sha256\`: \`${framework.sha256}\``);
  });

  it('prints the framework definition’s canonical bytes and the worked example’s package, each hashing as it says', () => {
    const blocks = specificationOf(framework);
    const after = (title: string) => {
      const at = blocks.findIndex((b) => b.kind === 'heading' && b.text === title);
      return blocks.slice(at).filter((b) => b.kind === 'code');
    };
    const definition = after('The framework definition')[0];
    expect(definition && sha256Hex(definition.text)).toBe(framework.sha256);
    const pkg = after('11. Worked example').find((b) => b.text.includes('"package_format"'));
    const bytes = serializePackage(buildPackage(WORKED_EXAMPLES.get('1.0'), framework));
    expect(pkg && canonicalJson(JSON.parse(pkg.text))).toBe(bytes);
  });

  it('has every section the examples link to', () => {
    const readme = readFileSync(join(root, 'examples/dcrf-1.0/README.md'), 'utf8');
    const anchors = new Set(
      specificationOf(framework)
        .filter((b) => b.kind === 'heading')
        .map((b) => anchorOf(b.text)),
    );
    const linked = [...readme.matchAll(/dcrf-1\.0\.md#([a-z0-9_-]+)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(0);
    for (const anchor of linked) expect(anchors, anchor).toContain(anchor);
  });
});

describe('the worked example', () => {
  it('is examples/dcrf-1.0/worked-example.json', () => {
    const file = JSON.parse(readFileSync(join(root, 'examples/dcrf-1.0/worked-example.json'), 'utf8'));
    expect(WORKED_EXAMPLES.get('1.0')).toEqual(file);
  });
});
