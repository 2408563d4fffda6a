// A contacts import as CSV: a header row, then one contact per row. Columns: phone (required),
// name, tags (separated by ";"), and any other column is a custom field of that name ("company"
// or "fields.company"). The rows become the JSON body of POST /contacts/import and are checked
// exactly as JSON ones are. The text is read under limits (the SMS bulk reader's), refused at the
// first cell past one with a 400 naming its row and column.
import { AppError } from '../../../common/errors.ts';
import { CsvProblem, csvRecords } from '../messages/csv-rows.ts';
import { IMPORT_MAX_CONTACTS } from '../../../modules/contacts/service.ts';

export const MAX_IMPORT_COLUMNS = 32;
const MAX_CELL = 512;
const FIELD_NAME = /^[A-Za-z0-9_-]{1,32}$/;

export async function importBodyFromCsv(text: string): Promise<{ contacts: Record<string, unknown>[] }> {
  let columns: string[] | undefined;
  const rows: Record<string, unknown>[] = [];
  try {
    for await (const record of csvRecords(text, { maxCells: () => MAX_IMPORT_COLUMNS, maxCellLength: () => MAX_CELL })) {
      if (!columns) {
        columns = readHeader(record);
        continue;
      }
      if (rows.length === IMPORT_MAX_CONTACTS) {
        const message = `an import takes at most ${IMPORT_MAX_CONTACTS} contacts; the CSV has more`;
        throw new AppError('validation_failed', message, [{ field: 'contacts', message: `contacts has more than ${IMPORT_MAX_CONTACTS} rows: ${message}` }]);
      }
      if (record.length !== columns.length) {
        const message = `row ${rows.length + 1} (contacts.${rows.length}) has ${record.length} cells; the header has ${columns.length}`;
        throw new AppError('validation_failed', `the CSV cannot be read: ${message}`, [{ field: `contacts.${rows.length}`, message }]);
      }
      rows.push(toContact(columns, record));
    }
  } catch (error) {
    if (error instanceof CsvProblem) {
      const where = error.record === 0 ? 'the header' : `row ${error.record} (contacts.${error.record - 1})`;
      const message = `the CSV cannot be read: ${where}, line ${error.line}: ${error.message}`;
      throw new AppError('validation_failed', message, [{ field: error.record === 0 ? 'header' : `contacts.${error.record - 1}`, message }]);
    }
    throw error;
  }
  if (!columns) throw new AppError('validation_failed', 'the CSV is empty: it needs a header row and at least one contact');
  if (rows.length === 0) throw new AppError('validation_failed', 'the CSV has a header row but no contact', [{ field: 'contacts', message: 'contacts is empty: the CSV has a header row but no contact' }]);
  return { contacts: rows };
}

function readHeader(header: string[]): string[] {
  const columns = header.map((cell) => {
    const name = cell.trim();
    const lower = name.toLowerCase();
    if (lower === 'phone' || lower === 'name' || lower === 'tags') return lower;
    return name.startsWith('fields.') ? name : `fields.${name}`;
  });
  const badField = columns.find((column) => column.startsWith('fields.') && !FIELD_NAME.test(column.slice('fields.'.length)));
  if (badField !== undefined) throw headerProblem(`the CSV header is invalid: "${badField.slice('fields.'.length)}" cannot name a custom field (1-32 letters, digits, _ or -)`);
  if (!columns.includes('phone')) throw headerProblem('the CSV header is invalid: the column phone is required');
  if (new Set(columns).size !== columns.length) throw headerProblem('the CSV header names a column twice');
  return columns;
}

function toContact(columns: string[], record: string[]): Record<string, unknown> {
  const contact: Record<string, unknown> = {};
  const fields: Record<string, string> = {};
  columns.forEach((column, i) => {
    const cell = (record[i] ?? '').trim();
    if (column === 'phone') contact['phone'] = cell;
    else if (column === 'name') contact['name'] = cell;
    else if (column === 'tags') contact['tags'] = cell.split(/[;|]/).map((tag) => tag.trim()).filter(Boolean);
    else if (cell !== '') fields[column.slice('fields.'.length)] = cell;
  });
  contact['fields'] = fields;
  return contact;
}

/** The header is wrong: its detail says so in the same words, naming the header as every detail names its field. */
function headerProblem(message: string): AppError {
  return new AppError('validation_failed', message, [{ field: 'header', message }]);
}
