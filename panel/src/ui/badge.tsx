import { statusLabel, statusTone } from './format.ts';

/** An SMS status: word first (never colour alone), tinted by how it went. */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`badge badge-${statusTone(status)}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}

export function OnlineBadge({ online }: { online: boolean }) {
  return <span class={`badge ${online ? 'badge-good' : 'badge-neutral'}`}>{online ? 'online' : 'offline'}</span>;
}

/** Whether a user or an account may use the gateway. */
export function AccessBadge({ disabled }: { disabled: boolean }) {
  return disabled ? <span class="badge badge-bad">disabled</span> : <span class="badge badge-good">enabled</span>;
}
