// Bulk sending from a CSV file (a header row with phone and message, optionally device_id,
// send_at, valid_until, ttl, priority). The API checks every row first in a dry run; the preview
// shows each row with its verdict. The file is then sent as a partial send (the API leaves out the
// rows it refuses and says why) or, unticked, all or nothing.
import { useState } from 'preact/hooks';
import { request } from '../api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { CheckboxField, CsvFileField } from '../ui/fields.tsx';
import { ErrorNotice, SuccessNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { useAction } from '../ui/use-action.ts';
import { BulkPreview } from './sms/bulk-preview.tsx';
import { parseCsv } from './sms/csv.ts';
import { RefusedRows, type RefusedRow } from './sms/refused-rows.tsx';
import type { BulkCheck, Sms } from '../api/types.ts';
import { Card } from '../ui/card.tsx';

const CSV = 'text/csv';
const FILE_HINT = 'A header row naming the columns phone and message, and optionally device_id, send_at, valid_until, ttl and priority; then one SMS per row (at most 1,000).';

interface Checked {
  fileName: string;
  text: string;
  header: string[];
  rows: string[][];
  checks: BulkCheck[];
}

export function BulkPage(_props: Record<string, string>) {
  const session = useSession();
  return (
    <Page title="Bulk send" actions={<a href={href('/send')}>Send one SMS</a>}>
      {session.canChange ? <BulkSend /> : <p class="notice notice-info">Viewers cannot send SMS.</p>}
    </Page>
  );
}

function BulkSend() {
  const [checked, setChecked] = useState<Checked>();
  const action = useAction();
  const [created, setCreated] = useState<number>();
  const [refused, setRefused] = useState<RefusedRow[]>([]);
  const [partial, setPartial] = useState(true);
  // Bumped after a send: a fresh file input, so the same file chosen again is checked again.
  const [inputKey, setInputKey] = useState(0);

  const choose = async (file: File | undefined) => {
    setChecked(undefined);
    setCreated(undefined);
    setRefused([]);
    action.clear();
    if (!file) return;
    await action.run(async () => {
      const text = await file.text();
      const { data } = await request<{ data: BulkCheck[] }>('POST', '/sms/bulk', { query: { dry_run: true }, raw: { content: text, type: CSV } });
      const [header = [], ...rows] = parseCsv(text);
      setChecked({ fileName: file.name, text, header, rows, checks: data });
    });
  };

  const validIndexes = new Set(checked?.checks.filter((check) => check.valid).map((check) => check.index) ?? []);
  const send = async () => {
    if (!checked) return;
    // The file as it was checked; the API itself leaves out the rows it refuses now.
    const result = await action.run(() =>
      request<{ data: Sms[]; errors?: RefusedRow[] }>('POST', '/sms/bulk', { ...(partial ? { query: { partial: true } } : {}), raw: { content: checked.text, type: CSV } }),
    );
    if (!result) return;
    setCreated(result.data.length);
    setRefused(result.errors ?? []);
    setChecked(undefined);
    setInputKey((key) => key + 1);
  };

  return (
    <>
      {created !== undefined && (
        <SuccessNotice>
          Created {created} SMS. <a href={href('/sms')}>See them in the SMS list</a>.
        </SuccessNotice>
      )}
      <RefusedRows rows={refused} what="rows" />
      <form class="card" onSubmit={(event) => event.preventDefault()}>
        <ErrorNotice error={action.error} />
        <CsvFileField name="csv" hint={FILE_HINT} disabled={action.busy} resetKey={inputKey} onFile={(file) => void choose(file)} />
        {action.busy && !checked && <p class="muted" aria-live="polite">Checking the file…</p>}
      </form>
      {checked && (
        <Card class="bulk-result" title={`Preview of ${checked.fileName}`}>
          <p>
            {validIndexes.size} of {checked.checks.length} rows are valid.{partial && validIndexes.size < checked.checks.length && ' Rows with errors are left out.'}
          </p>
          <BulkPreview header={checked.header} rows={checked.rows} checks={checked.checks} />
          <CheckboxField
            label="Leave out rows with errors and send the others"
            hint="Unticked, one bad row refuses the whole file and nothing is sent."
            name="partial"
            checked={partial}
            onChecked={setPartial}
          />
          <button
            type="button"
            class="button button-primary"
            disabled={action.busy || validIndexes.size === 0 || (!partial && validIndexes.size < checked.checks.length)}
            onClick={() => void send()}
          >
            {partial ? `Send ${validIndexes.size} valid SMS` : `Send all ${checked.checks.length} SMS`}
          </button>
        </Card>
      )}
    </>
  );
}
