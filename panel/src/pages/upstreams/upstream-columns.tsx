// What the upstreams table says of each: its kind and where it is, whether it is on, how this
// node's link to it stands (and why, when it is not well), what it carried and cost this month
// against its budget, and its prices. Words first, colour second.
import type { Column } from '../../ui/table.tsx';
import { TimeAgo } from '../../ui/time-ago.tsx';
import type { LinkState, Upstream } from './types.ts';

const LINK_TONES: Record<LinkState, string> = { ready: 'good', connecting: 'info', throttled: 'info', down: 'bad', closed: 'neutral' };

export function kindLabel(upstream: Upstream): string {
  return upstream.kind === 'smpp' ? 'SMPP' : 'Twilio-compatible';
}

/** Money in the account's own currency, which the gateway does not name: a figure, up to 4 decimals. */
export function money(value: number): string {
  return value.toLocaleString(undefined, { maximumFractionDigits: 4 });
}

export function LinkStateCell({ upstream }: { upstream: Upstream }) {
  const { state, detail, since } = upstream.link;
  return (
    <span data-link-state={state}>
      <span class={`badge badge-${LINK_TONES[state]}`}>{state}</span>{' '}
      <span class="muted state-reason">
        since <TimeAgo at={since} />
      </span>
      {detail && <div class="muted state-reason">{detail}</div>}
    </span>
  );
}

function Where({ upstream }: { upstream: Upstream }) {
  const where = upstream.kind === 'smpp' ? `${upstream.host ?? ''}:${upstream.port ?? ''}${upstream.tls ? ' (TLS)' : ''}` : (upstream.base_url ?? '');
  return <div class="muted state-reason url-cell">{where}</div>;
}

function Month({ upstream }: { upstream: Upstream }) {
  const { segments, spent } = upstream.month;
  return (
    <>
      <div>
        {segments} {segments === 1 ? 'segment' : 'segments'}
      </div>
      <div class="muted state-reason">
        {upstream.monthly_budget === null ? `${money(spent)} spent, no budget` : `${money(spent)} of ${money(upstream.monthly_budget)} spent`}
      </div>
    </>
  );
}

function Price({ upstream }: { upstream: Upstream }) {
  const prefixes = upstream.prefix_prices;
  return (
    <>
      <div>{upstream.price_per_segment === null ? <span class="muted">no price</span> : `${money(upstream.price_per_segment)} a segment`}</div>
      {prefixes.length > 0 && <div class="muted state-reason">{prefixes.map(({ prefix, price }) => `${prefix}: ${money(price)}`).join(', ')}</div>}
    </>
  );
}

export const UPSTREAM_COLUMNS: Column<Upstream>[] = [
  { header: 'Name', rowHeader: true, cell: (upstream) => upstream.name },
  {
    header: 'Kind',
    cell: (upstream) => (
      <>
        {kindLabel(upstream)}
        <Where upstream={upstream} />
      </>
    ),
  },
  { header: 'State', cell: (upstream) => (upstream.enabled ? <span class="badge badge-good">enabled</span> : <span class="badge badge-bad">disabled</span>) },
  { header: 'Link', cell: (upstream) => <LinkStateCell upstream={upstream} /> },
  { header: `This month`, cell: (upstream) => <Month upstream={upstream} /> },
  { header: 'Price', cell: (upstream) => <Price upstream={upstream} /> },
];
