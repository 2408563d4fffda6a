import type { Static } from '@sinclair/typebox';
import type { SuppressionRow } from './types.ts';
import type { SuppressionView } from './schema.ts';

export function presentSuppression(row: SuppressionRow): Static<typeof SuppressionView> {
  return { id: row.id, phone: row.phone, source: row.source, keyword: row.keyword, created_at: row.created_at.toISOString() };
}

/** One CSV line of the export: phone,source,keyword,created_at (a cell with a comma or quote is quoted). */
export function suppressionCsvLine(row: SuppressionRow): string {
  return [row.phone, row.source, row.keyword ?? '', row.created_at.toISOString()].map(csvCell).join(',') + '\r\n';
}

export const SUPPRESSION_CSV_HEADER = 'phone,source,keyword,created_at\r\n';

function csvCell(value: string): string {
  // A cell starting with = + - @ is read as a formula by spreadsheets: quote it with a leading '.
  const safe = /^[=+\-@]/.test(value) && !/^\+\d+$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The file's line of each number a CSV import read, by its array: the header and blank lines are
 * skipped, so a number's position is not its line, and an error must name the line the user sees.
 * Kept beside the body, which its schema allows no other field in.
 */
const csvLines = new WeakMap<string[], number[]>();

/** The numbers of an import's CSV text: the first cell of each line, past an optional "phone" header. */
export function phonesOfCsv(text: string): { phones: string[] } {
  const lines = text.replace(/^\ufeff/, '').split(/\r\n|\n|\r/);
  const phones: string[] = [];
  const lineNumbers: number[] = [];
  for (const [index, line] of lines.entries()) {
    const first = line.split(',')[0]!.trim().replace(/^"(.*)"$/, '$1').trim();
    if (index === 0 && first.toLowerCase() === 'phone') continue;
    if (first === '') continue;
    phones.push(first.slice(0, 64));
    lineNumbers.push(index + 1);
  }
  csvLines.set(phones, lineNumbers);
  return { phones };
}

/** The 1-based line of each entry of an import: its line in the CSV file, or its position in JSON. */
export function importLines(phones: string[]): number[] {
  return csvLines.get(phones) ?? phones.map((_, index) => index + 1);
}
