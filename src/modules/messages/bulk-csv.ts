// A bulk send as CSV: a header row naming columns, one SMS per row. The columns are the fields
// of POST /sms; the rows become the JSON body of POST /sms/bulk and are validated exactly as
// JSON ones are, so a bad cell is reported as messages.{row index}.{column}.
import { parse } from 'csv-parse/sync';
import { AppError } from '../../common/errors.ts';
import { BULK_MAX_MESSAGES } from './schema.ts';

const COLUMNS = ['phone', 'message', 'device_id', 'sim_slot', 'callback_id', 'send_at', 'valid_until', 'ttl', 'priority'] as const;
const WHOLE_NUMBERS: ReadonlySet<string> = new Set(['sim_slot', 'ttl', 'priority']);

export function bulkBodyFromCsv(text: string): { messages: Record<string, unknown>[] } {
  let rows: string[][];
  try {
    rows = parse(text.replace(/^\uFEFF/, ''), { relax_column_count: false, skip_empty_lines: true, bom: true }) as string[][];
  } catch (error) {
    throw new AppError('validation_failed', `the CSV cannot be read: ${(error as Error).message}`, [
      { field: 'body', in: 'body', message: (error as Error).message },
    ]);
  }
  const [header, ...records] = rows;
  if (!header) throw new AppError('validation_failed', 'the CSV is empty: it needs a header row and at least one SMS');
  const columns = header.map((name) => name.trim().toLowerCase());
  const unknown = columns.filter((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0 || !columns.includes('phone') || !columns.includes('message')) {
    const problem = unknown.length > 0 ? `unknown column ${unknown.map((name) => `"${name}"`).join(', ')}` : 'the columns phone and message are required';
    throw new AppError('validation_failed', `the CSV header is invalid: ${problem}; columns: ${COLUMNS.join(', ')}`, [
      { field: 'header', in: 'body', message: problem },
    ]);
  }
  if (new Set(columns).size !== columns.length) throw new AppError('validation_failed', 'the CSV header names a column twice');
  if (records.length > BULK_MAX_MESSAGES) {
    throw new AppError('validation_failed', `a bulk send takes at most ${BULK_MAX_MESSAGES} messages; the CSV has ${records.length}`);
  }
  return {
    messages: records.map((record) => {
      const message: Record<string, unknown> = {};
      columns.forEach((column, i) => {
        const cell = record[i] ?? '';
        // An empty optional cell means "not given"; phone and message stay, to be reported empty.
        if (cell === '' && column !== 'phone' && column !== 'message') return;
        message[column] = WHOLE_NUMBERS.has(column) && /^-?\d+$/.test(cell.trim()) ? Number(cell.trim()) : cell;
      });
      return message;
    }),
  };
}
