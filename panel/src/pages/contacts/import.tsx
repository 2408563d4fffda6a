// Importing contacts from a CSV file: the gateway checks every row first (a dry run) and the page
// shows each one's result (new, updated, or what is wrong); the import itself is one more click,
// allowed once no row is wrong.
import { useState } from 'preact/hooks';
import { ApiError, request } from '../../api.ts';
import type { ContactImportCheck } from '../../api/types.ts';
import { Field } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';

const CSV = 'text/csv';

export function ContactImport({ onImported }: { onImported: () => void }) {
  const [text, setText] = useState<string>();
  const [checked, setChecked] = useState<ContactImportCheck[]>();
  const [done, setDone] = useState<{ created: number; updated: number }>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const [inputKey, setInputKey] = useState(0);

  const run = async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await work();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  const choose = async (file: File | undefined) => {
    setChecked(undefined);
    setDone(undefined);
    if (!file) return;
    const content = await file.text();
    setText(content);
    const preview = await run(() => request<{ data: ContactImportCheck[] }>('POST', '/contacts/import', { query: { dry_run: true }, raw: { content, type: CSV } }));
    if (preview) setChecked(preview.data);
  };

  const importAll = async () => {
    if (!text) return;
    const result = await run(() => request<{ created: number; updated: number }>('POST', '/contacts/import', { raw: { content: text, type: CSV } }));
    if (!result) return;
    setDone(result);
    setChecked(undefined);
    setText(undefined);
    setInputKey((key) => key + 1);
    onImported();
  };

  const wrong = checked?.filter((row) => !row.valid).length ?? 0;
  return (
    <section class="card admin-form" aria-labelledby="contact-import">
      <h2 id="contact-import">Import from CSV</h2>
      {done && <SuccessNotice>Imported: {done.created} new, {done.updated} updated.</SuccessNotice>}
      <ErrorNotice error={error} />
      <Field label="CSV file" hint="A header row: phone (required), name, tags (separated by ;), and any other column as a custom field. A number already a contact is updated.">
        {(aria) => <input {...aria} key={inputKey} type="file" name="contacts_csv" accept=".csv,text/csv" disabled={busy} onChange={(event) => void choose(event.currentTarget.files?.[0])} />}
      </Field>
      {checked && (
        <>
          <table class="data-table contact-import-preview">
            <caption>Preview: {checked.length} rows, {wrong} with problems</caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Result</th>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
              </tr>
            </thead>
            <tbody>
              {checked.map((row) => (
                <tr key={row.index} data-valid={String(row.valid)}>
                  <td>{row.index + 1}</td>
                  <td>{row.valid ? (row.action === 'create' ? 'New' : 'Updates a contact') : row.errors.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}</td>
                  <td>{row.valid ? row.name : ''}</td>
                  <td class="mono">{row.valid ? row.phone : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {wrong > 0 && <p class="notice notice-info">Fix the rows with problems in the file and choose it again: nothing is imported while a row is wrong.</p>}
          <button type="button" class="button button-primary" disabled={busy || wrong > 0} onClick={() => void importAll()}>
            Import {checked.length} contacts
          </button>
        </>
      )}
    </section>
  );
}
