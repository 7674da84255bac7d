import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorOf } from '@svc/methodology';
import { describe, expect, it } from 'vitest';

/**
 * The Markdown documentation of the repository as a reader of it meets it: each topic under one heading, and every
 * link between the files reaching a file that exists and, with `#anchor`, a heading of it.
 */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FILES = execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '');

/** The lines of a Markdown text outside fenced code blocks, with their numbers. */
function prose(text: string): [number, string][] {
  const lines: [number, string][] = [];
  let fenced = false;
  for (const [n, line] of text.split('\n').entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push([n + 1, line]);
  }
  return lines;
}

/** The headings' texts, as written less their links' targets and code marks. */
function headingsOf(text: string): string[] {
  return prose(text)
    .map(([, line]) => /^#{1,6} +(.*?)\s*$/.exec(line)?.[1])
    .filter((h): h is string => h !== undefined)
    .map((h) => h.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, ''));
}

/** The anchors GitHub gives a file's headings: the second of a text gets `-1`, the third `-2`. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(text)) {
    const anchor = anchorOf(heading);
    const n = seen.get(anchor) ?? 0;
    anchors.add(n === 0 ? anchor : `${anchor}-${n}`);
    seen.set(anchor, n + 1);
  }
  return anchors;
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the Markdown documentation', () => {
  it('finds the docs (the list is read from git)', () => {
    expect(FILES).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/operations.md']));
  });

  it.each(FILES)('%s has no heading twice: each topic in one place', (file) => {
    const headings = headingsOf(read(file));
    expect(headings.filter((h, i) => headings.indexOf(h) !== i)).toEqual([]);
  });

  it('docs/operations.md keeps the operators apart from the backups, and the master key in one section', () => {
    const headings = prose(read('docs/operations.md'))
      .map(([, line]) => line)
      .filter((line) => line.startsWith('#'));
    expect(headings).toContain('## Operators and the audit trail');
    expect(headings).toContain('## Backups');
    expect(headings.filter((h) => /master key/i.test(h))).toEqual(['## The master key']);
  });

  it('every relative link reaches a file that exists and, with an anchor, one of its headings', () => {
    const broken: string[] = [];
    for (const file of FILES) {
      for (const [n, line] of prose(read(file))) {
        // Links outside code spans: `[text](target)`, the target without a title.
        for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1] ?? '';
          if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
          const [path = '', anchor] = target.split('#');
          const into = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
          const where = `${file}:${n} ${target}`;
          if (!existsSync(join(ROOT, into))) broken.push(`${where}: no ${into}`);
          else if (anchor !== undefined && into.endsWith('.md') && !anchorsOf(read(into)).has(anchor))
            broken.push(`${where}: no heading #${anchor} in ${into}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
