// The rows a partial send left out (?partial=true), as the API answered them: which row, to whom,
// and why. A row can pass the preview and still be left out at send time (its number opted out
// in between), so the send's own answer is shown, not the preview's.
import { Card } from '../../ui/card.tsx';

export interface RefusedRow {
  index: number;
  recipient: string | null;
  code: string;
  message: string;
}

export function RefusedRows({ rows, what }: { rows: RefusedRow[]; what: string }) {
  if (rows.length === 0) return null;
  return (
    <Card class="refused-rows" title={`${rows.length} ${what} not sent`}>
      <ul>
        {rows.map((row) => (
          <li key={row.index} data-testid="refused-row">
            {what === 'rows' ? 'Row' : 'Recipient'} {row.index + 1}
            {row.recipient ? <span class="mono"> ({row.recipient})</span> : null}: <code>{row.code}</code>, {row.message}
          </li>
        ))}
      </ul>
    </Card>
  );
}
