// The opt-out list's import: a CSV file with one number a line (a header "phone" may head it), as
// the list's own export writes it. Valid numbers are added, the others named by their line.
import { useState } from 'preact/hooks';
import { request } from '../../api.ts';
import { Card } from '../../ui/card.tsx';
import { CsvFileField } from '../../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import { useAction } from '../../ui/use-action.ts';

interface ImportResult {
  added: number;
  already: number;
  invalid: { line: number; message: string }[];
}

export function ImportForm({ onImported }: { onImported: () => void }) {
  const action = useAction(onImported);
  const [result, setResult] = useState<ImportResult>();
  // A new key empties the file input, so the same file can be chosen again.
  const [inputKey, setInputKey] = useState(0);
  const choose = async (file: File | undefined) => {
    setResult(undefined);
    if (!file) return;
    const content = await file.text();
    setResult(await action.run(() => request<ImportResult>('POST', '/suppressions/import', { raw: { content, type: 'text/csv' } })));
    setInputKey((key) => key + 1);
  };
  return (
    <Card title="Import numbers">
      <ErrorNotice error={action.error} />
      <CsvFileField name="suppressions_csv" hint={'One number a line, as the export above writes them; a first line "phone" is skipped.'} disabled={action.busy} resetKey={inputKey} onFile={(file) => void choose(file)} />
      {result && (
        <SuccessNotice>
          Added {result.added} {result.added === 1 ? 'number' : 'numbers'}; {result.already} already on the list.
          {result.invalid.length > 0 && ` Skipped: ${result.invalid.map((entry) => `line ${entry.line} (${entry.message})`).join('; ')}.`}
        </SuccessNotice>
      )}
    </Card>
  );
}
