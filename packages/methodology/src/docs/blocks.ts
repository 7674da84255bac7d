/**
 * The methodology page as blocks, so one generator feeds both docs/methodology/*.md and the service's
 * /methodology page. Inline text uses one markup only: `code` spans between backticks.
 */
export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: readonly string[] }
  | { kind: 'table'; head: readonly string[]; rows: readonly (readonly string[])[] }
  | { kind: 'code'; language: 'json' | 'text'; text: string }
  | { kind: 'note'; text: string };

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** Markdown of the blocks: CommonMark with GitHub tables; a note is an HTML comment. */
export function markdownOf(blocks: readonly Block[]): string {
  return `${blocks.map(markdownBlock).join('\n\n')}\n`;
}

function markdownBlock(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`;
    case 'paragraph':
      return block.text;
    case 'list':
      return block.items.map((item) => `- ${item}`).join('\n');
    case 'table':
      return [block.head, block.head.map(() => '---'), ...block.rows]
        .map((row) => `| ${row.map(cell).join(' | ')} |`)
        .join('\n');
    case 'code':
      return `\`\`\`${block.language}\n${block.text}\n\`\`\``;
    case 'note':
      return `<!-- ${block.text} -->`;
  }
}

/** A table cell: a pipe would end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
