import { showControls } from '@svc/methodology';

/** RFC 4180 CSV with the cells a spreadsheet would run as a formula defused. */

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: numbers as written; text with an apostrophe before a leading `=`, `+`, `-`, `@`, tab or
 * carriage return (so Excel, LibreOffice and Sheets show it instead of evaluating it, OWASP's advice),
 * quoted when it holds a comma, a quote or a line break. Control characters a store may hold (written
 * before free text refused them) are shown as `\u001b`-style escapes, never passed on to a terminal.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const shown = showControls(value);
  const text = FORMULA_START.test(shown) ? `'${shown}` : shown;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: readonly (string | number | boolean | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
