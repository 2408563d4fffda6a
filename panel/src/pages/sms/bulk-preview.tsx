// The dry run's verdict on each CSV row: the row's phone and message as the file has them (the
// number as it will be sent for a valid row), and the API's errors for an invalid one.
import type { BulkCheck } from '../../api/types.ts';

export function BulkPreview({ header, rows, checks }: { header: string[]; rows: string[][]; checks: BulkCheck[] }) {
  const column = (name: string) => header.findIndex((cell) => cell.trim().toLowerCase() === name);
  const phoneColumn = column('phone');
  const messageColumn = column('message');
  return (
    // Focusable so a keyboard can scroll a wide preview on a narrow screen (it holds no links).
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Rows of the file">
      <table class="bulk-preview">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Phone</th>
            <th scope="col">Message</th>
            <th scope="col">Check</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((check) => {
            const row = rows[check.index] ?? [];
            return (
              <tr key={check.index} data-valid={String(check.valid)} class={check.valid ? undefined : 'bulk-row-invalid'}>
                <td class="num">{check.index + 1}</td>
                <td class="mono sms-nowrap">{check.valid ? check.phone : (row[phoneColumn] ?? '')}</td>
                <td class="sms-text-cell">{check.valid ? check.message : (row[messageColumn] ?? '')}</td>
                <td>{check.valid ? <span class="badge badge-good">valid</span> : <span class="badge badge-bad">invalid</span>}</td>
                {check.valid ? (
                  <td class="muted">
                    {check.segments} SMS
                  </td>
                ) : (
                  <td data-testid="row-error">{check.errors.map((error) => error.message).join('; ')}</td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
