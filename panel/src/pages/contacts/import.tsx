// Importing contacts from a CSV file: the gateway checks every row first (a dry run) and the page
// shows each one's result (new, updated, or what is wrong); the import itself is one more click,
// allowed once no row is wrong.
import { useState } from 'preact/hooks';
import { request } from '../../api.ts';
import type { ContactImportCheck } from '../../api/types.ts';
import { CsvFileField } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import { Table } from '../../ui/table.tsx';
import { useAction } from '../../ui/use-action.ts';
import { Card } from '../../ui/card.tsx';

const CSV = 'text/csv';
const FILE_HINT = 'A header row: phone (required), name, tags (separated by ;), and any other column as a custom field. A number already a contact is updated.';

/** A row's problem in words: the API's message, after the field it is about unless it names it already ("" is the row itself). */
function describeProblem({ field, message }: { field: string; message: string }): string {
  return field === '' || message.startsWith(field) ? message : `${field}: ${message}`;
}

export function ContactImport({ onImported }: { onImported: () => void }) {
  const [text, setText] = useState<string>();
  const [checked, setChecked] = useState<ContactImportCheck[]>();
  const [done, setDone] = useState<{ created: number; updated: number }>();
  const [inputKey, setInputKey] = useState(0);
  const action = useAction();

  const choose = async (file: File | undefined) => {
    setChecked(undefined);
    setDone(undefined);
    if (!file) return;
    const content = await file.text();
    setText(content);
    const preview = await action.run(() => request<{ data: ContactImportCheck[] }>('POST', '/contacts/import', { query: { dry_run: true }, raw: { content, type: CSV } }));
    if (preview) setChecked(preview.data);
  };

  const importAll = async () => {
    if (!text) return;
    const result = await action.run(() => request<{ created: number; updated: number }>('POST', '/contacts/import', { raw: { content: text, type: CSV } }));
    if (!result) return;
    setDone(result);
    setChecked(undefined);
    setText(undefined);
    setInputKey((key) => key + 1);
    onImported();
  };

  const wrong = checked?.filter((row) => !row.valid).length ?? 0;
  return (
    <Card class="admin-form" title="Import from CSV">
      {done && <SuccessNotice>Imported: {done.created} new, {done.updated} updated.</SuccessNotice>}
      <ErrorNotice error={action.error} />
      <CsvFileField name="contacts_csv" hint={FILE_HINT} disabled={action.busy} resetKey={inputKey} onFile={(file) => void choose(file)} />
      {checked && (
        <>
          <Table
            class="data-table contact-import-preview"
            caption={`Preview: ${checked.length} rows, ${wrong} with problems`}
            rows={checked}
            rowKey={(row) => row.index}
            rowAttributes={(row) => ({ 'data-valid': String(row.valid) })}
            columns={[
              { header: 'Row', cell: (row) => row.index + 1 },
              { header: 'Result', cell: (row) => (row.valid ? (row.action === 'create' ? 'New' : 'Updates a contact') : row.errors.map(describeProblem).join('; ')) },
              { header: 'Name', cell: (row) => (row.valid ? row.name : '') },
              { header: 'Number', class: 'mono', cell: (row) => (row.valid ? row.phone : '') },
            ]}
          />
          {wrong > 0 && <p class="notice notice-info">Fix the rows with problems in the file and choose it again: nothing is imported while a row is wrong.</p>}
          <button type="button" class="button button-primary" disabled={action.busy || wrong > 0} onClick={() => void importAll()}>
            Import {checked.length} contacts
          </button>
        </>
      )}
    </Card>
  );
}
