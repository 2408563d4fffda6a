// A bulk send as CSV: a header row naming columns, one SMS per row. The columns are the fields
// of POST /sms; the rows become the JSON body of POST /sms/bulk and are validated exactly as
// JSON ones are, so a bad cell is reported as messages.{row index}.{column}.
//
// The text is read a record at a time under limits no valid bulk send comes near (csv-rows.ts):
// a header with far more columns than there are fields, a cell longer than any field can be, a
// row more than the most a bulk send takes. Each is refused with a 400 at the first character
// past its limit, naming the line, row and column, instead of after reading megabytes of it.
import { AppError, type ErrorDetail } from '../../../common/errors.ts';
import { MAX_UNITS_PER_CHARACTER } from '../../../common/characters.ts';
import { BULK_MAX_MESSAGES, MESSAGE_MAX_CHARACTERS } from '../../../modules/messages/schema.ts';
import { CsvProblem, csvRecords, type CsvLimits } from './csv-rows.ts';

const COLUMNS = ['phone', 'message', 'device_id', 'sim_slot', 'callback_id', 'send_at', 'valid_until', 'ttl', 'priority', 'category'] as const;
/** What a bulk CSV must hold, said whenever one holds too little to tell what went wrong. */
const WHAT_A_CSV_HOLDS = `it needs a header line naming its columns (phone and message, and any of ${COLUMNS.slice(2).join(', ')}) and at least one row below it, one SMS per row`;
const WHOLE_NUMBERS: ReadonlySet<string> = new Set(['sim_slot', 'ttl', 'priority']);

/** Header cells beyond the known columns that are still read, so the answer can name a few unknown ones. */
const HEADER_MARGIN = 7;
export const MAX_HEADER_COLUMNS = COLUMNS.length + HEADER_MARGIN;
/** No column is named anything near this long. */
const MAX_HEADER_CELL = 64;
/** A message cell: as long as a message may be (common/characters.ts). */
export const MAX_MESSAGE_CELL = MESSAGE_MAX_CHARACTERS * MAX_UNITS_PER_CHARACTER;
/** Every other field is a phone number, an id, a time or a number: none is longer than 64 characters. */
export const MAX_OTHER_CELL = 256;

export async function bulkBodyFromCsv(text: string): Promise<{ messages: Record<string, unknown>[] }> {
  let columns: string[] | undefined;
  const limits: CsvLimits = {
    maxCells: () => (columns ? columns.length : MAX_HEADER_COLUMNS),
    maxCellLength: (_record, column) => {
      if (!columns) return MAX_HEADER_CELL;
      return columns[column] === 'message' ? MAX_MESSAGE_CELL : MAX_OTHER_CELL;
    },
  };
  const records: string[][] = [];
  try {
    for await (const record of csvRecords(text, limits)) {
      if (!columns) {
        columns = readHeader(record);
        continue;
      }
      if (records.length === BULK_MAX_MESSAGES) {
        throw new AppError('validation_failed', `a bulk send takes at most ${BULK_MAX_MESSAGES} messages; the CSV has more`, [
          { field: 'messages', in: 'body', message: `more than ${BULK_MAX_MESSAGES} rows` },
        ]);
      }
      if (record.length !== columns.length) throw rowProblem(records.length, `has ${record.length} cells; the header has ${columns.length}`);
      records.push(record);
    }
  } catch (error) {
    if (error instanceof CsvProblem) throw fromCsvProblem(error, columns);
    throw error;
  }
  if (!columns) {
    const problem = `the CSV is empty: ${WHAT_A_CSV_HOLDS}`;
    throw new AppError('validation_failed', problem, [{ field: 'header', in: 'body', message: problem }]);
  }
  if (records.length === 0) {
    const problem = `the CSV has a header line but no rows: ${WHAT_A_CSV_HOLDS}`;
    throw new AppError('validation_failed', problem, [{ field: 'messages', in: 'body', message: problem }]);
  }
  return { messages: records.map((record) => toMessage(columns!, record)) };
}

function readHeader(header: string[]): string[] {
  const columns = header.map((name) => name.trim().toLowerCase());
  const unknown = columns.filter((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0 || !columns.includes('phone') || !columns.includes('message')) {
    const problem = unknown.length > 0 ? `unknown column ${unknown.map((name) => `"${name}"`).join(', ')}` : 'the columns phone and message are required';
    throw new AppError('validation_failed', `the CSV header is invalid: ${problem}; columns: ${COLUMNS.join(', ')}`, [
      { field: 'header', in: 'body', message: problem },
    ]);
  }
  if (new Set(columns).size !== columns.length) throw new AppError('validation_failed', 'the CSV header names a column twice');
  return columns;
}

function toMessage(columns: string[], record: string[]): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = record[i] ?? '';
    // An empty optional cell means "not given"; phone and message stay, to be reported empty.
    if (cell === '' && column !== 'phone' && column !== 'message') return;
    message[column] = WHOLE_NUMBERS.has(column) && /^-?\d+$/.test(cell.trim()) ? Number(cell.trim()) : cell;
  });
  return message;
}

/** A data row (0-based among the SMS rows) is wrong as a whole. */
function rowProblem(index: number, problem: string): AppError {
  const message = `the CSV cannot be read: row ${index + 1} (messages.${index}) ${problem}`;
  return new AppError('validation_failed', message, [{ field: `messages.${index}`, in: 'body', message }]);
}

/** Where the reader stopped, in the words of the API: the header, or messages.{index}.{column}. */
function fromCsvProblem(problem: CsvProblem, columns: string[] | undefined): AppError {
  if (problem.record === 0 || !columns) {
    const message =
      problem.kind === 'too_many_cells'
        ? `the CSV header has more than ${MAX_HEADER_COLUMNS} columns; a bulk send knows ${COLUMNS.length}: ${COLUMNS.join(', ')}`
        : problem.kind === 'cell_too_long'
          ? `the CSV header's column ${problem.column + 1} is longer than ${MAX_HEADER_CELL} characters; the columns are ${COLUMNS.join(', ')}`
          : `the CSV cannot be read: the header (line ${problem.line}) ${problem.message}`;
    return new AppError('validation_failed', message, [{ field: 'header', in: 'body', message }]);
  }
  const index = problem.record - 1;
  const column = columns[problem.column];
  if (problem.kind === 'cell_too_long' && column) {
    const limit = column === 'message' ? `a message has at most ${MESSAGE_MAX_CHARACTERS} characters` : `no valid ${column} is that long`;
    const message = `row ${index + 1} (messages.${index}, line ${problem.line}), column ${column}: the cell is longer than ${limitOf(column)} characters; ${limit}`;
    const code = column === 'message' ? 'message_too_long' : 'validation_failed';
    return new AppError(code, message, [{ field: `messages.${index}.${column}`, in: 'body', message } satisfies ErrorDetail]);
  }
  if (problem.kind === 'too_many_cells') return rowProblem(index, `(line ${problem.line}) has more cells than the header's ${columns.length}`);
  const where = column ? `messages.${index}.${column}` : `messages.${index}`;
  const message = `the CSV cannot be read: row ${index + 1} (${where}, line ${problem.line}) ${problem.message}`;
  return new AppError('validation_failed', message, [{ field: where, in: 'body', message }]);
}

function limitOf(column: string): number {
  return column === 'message' ? MAX_MESSAGE_CELL : MAX_OTHER_CELL;
}
