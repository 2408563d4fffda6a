// The dry run's verdict on each CSV row: the row's phone and message as the file has them (the
// number as it will be sent for a valid row), and the API's errors for an invalid one.
import type { BulkCheck } from '../../api/types.ts';
import { Table } from '../../ui/table.tsx';

export function BulkPreview({ header, rows, checks }: { header: string[]; rows: string[][]; checks: BulkCheck[] }) {
  const column = (name: string) => header.findIndex((cell) => cell.trim().toLowerCase() === name);
  const phoneColumn = column('phone');
  const messageColumn = column('message');
  const fileCell = (check: BulkCheck, index: number) => rows[check.index]?.[index] ?? '';
  return (
    // Focusable so a keyboard can scroll a wide preview on a narrow screen (it holds no links).
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Rows of the file">
      <Table
        class="bulk-preview"
        rows={checks}
        rowKey={(check) => check.index}
        rowAttributes={(check) => ({ 'data-valid': String(check.valid), class: check.valid ? undefined : 'bulk-row-invalid' })}
        columns={[
          { header: 'Row', class: 'num', cell: (check) => check.index + 1 },
          { header: 'Phone', class: 'mono sms-nowrap', cell: (check) => (check.valid ? check.phone : fileCell(check, phoneColumn)) },
          { header: 'Message', class: 'sms-text-cell', cell: (check) => (check.valid ? check.message : fileCell(check, messageColumn)) },
          { header: 'Check', cell: (check) => (check.valid ? <span class="badge badge-good">valid</span> : <span class="badge badge-bad">invalid</span>) },
          {
            header: 'Details',
            cell: (check) => (check.valid ? <span class="muted">{check.segments} SMS</span> : <span data-testid="row-error">{check.errors.map((error) => error.message).join('; ')}</span>),
          },
        ]}
      />
    </div>
  );
}
