// What the gateway knows of a device and its queue, as a list of facts.
import { OnlineBadge } from '../../ui/badge.tsx';
import { formatTime } from '../../ui/format.ts';
import { BatteryLevel, ChargingState } from './device-power.tsx';
import type { DeviceDetail, DeviceQueue, Limits } from '../../api/types.ts';
import { isPaused } from './paused.ts';
import { LastSeen } from './last-seen.tsx';

const BLOCKED_BY: Record<NonNullable<DeviceQueue['blocked_by']>, string> = {
  cannot_send: 'sending is switched off for it',
  radio: 'its phone says its radio cannot send',
  paused: 'it is paused after failed sends',
  quiet_hours: 'its quiet hours',
  jitter: 'it waits the random pause between sends (send_jitter)',
  window: 'it holds as many SMS as it may at once',
  per_minute: 'its limit per minute is reached',
  per_hour: 'its limit per hour is reached',
  per_day: 'its limit per day is reached',
  degraded: 'every SIM it reported is degraded (it does not send); it takes only canary SMS until one passes or it is marked healthy',
  sim_per_day: 'every SIM that may send has reached its limit per day',
  sim_per_month: 'every SIM that may send has reached its limit per month',
  sim_recipients_per_month: 'every SIM that may send has reached its limit of recipients per month',
};

/** What the phone's agent said of its radio in its last heartbeat. */
function radioText(device: DeviceDetail): string {
  const { radio } = device;
  if (!radio) return 'not reported';
  if (radio.can_send) return 'can send';
  const why = [radio.problem, radio.detail].filter(Boolean).join(': ');
  return `cannot send${why ? ` (${why})` : ''}, as of ${formatTime(radio.reported_at)}`;
}

export function DeviceFacts({ device, offlineSince }: { device: DeviceDetail; offlineSince?: string | undefined }) {
  const { queue } = device;
  return (
    <div class="cards device-facts">
      <div class="card">
        <h2 class="card-heading">Phone</h2>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <OnlineBadge online={device.is_online} />
          </dd>
          <dt>Battery</dt>
          <dd>
            <BatteryLevel device={device} />
          </dd>
          <dt>Signal</dt>
          <dd data-testid="device-signal">{device.signal_percent === null ? <span class="muted">not reported</span> : `${device.signal_percent} %`}</dd>
          <dt>Radio</dt>
          <dd data-testid="device-radio">{radioText(device)}</dd>
          <dt>Received SMS kept on it</dt>
          <dd data-testid="device-incoming-held">{incomingHeldText(device)}</dd>
          <dt>Charging</dt>
          <dd>
            <ChargingState device={device} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <LastSeen device={device} offlineSince={offlineSince} />
          </dd>
          <dt>SIMs</dt>
          <dd data-testid="device-sims">{device.sim_cards.length === 0 ? 'none reported' : device.sim_cards.map(simText).join('; ')}</dd>
          <dt>Reported name</dt>
          <dd>{device.name}</dd>
          <dt>Kind</dt>
          <dd>{device.type}</dd>
          <dt>Device id</dt>
          <dd>
            <code>{device.id}</code>
          </dd>
          <dt>Registered</dt>
          <dd>{formatTime(device.created_at)}</dd>
        </dl>
      </div>
      <div class="card">
        <h2 class="card-heading">Queue and limits</h2>
        <dl class="facts">
          <dt>Can take SMS</dt>
          <dd data-testid="device-blocked-by">{queue.blocked_by ? `no: ${BLOCKED_BY[queue.blocked_by]}` : 'yes'}</dd>
          <dt>In flight</dt>
          <dd>
            {queue.in_flight} of {device.send_window}
          </dd>
          <dt>Waiting for it</dt>
          <dd>{queue.waiting}</dd>
          <dt>Handed out</dt>
          <dd>{handedOut(queue, device.limits)}</dd>
          <dt>Device group</dt>
          <dd data-testid="device-group">{device.group ?? 'none'}</dd>
          <dt>Quiet hours</dt>
          <dd>{device.quiet_hours ? `${device.quiet_hours.from}–${device.quiet_hours.to} (${device.quiet_hours.timezone})` : 'none'}</dd>
          <dt>Paused</dt>
          <dd>{pauseText(device)}</dd>
        </dl>
      </div>
    </div>
  );
}

const NUMBER_SOURCE = { owner: 'set in settings', device: 'reported by the phone' } as const;

/** A SIM with its operator and its own number, and where the number comes from. */
function simText(sim: DeviceDetail['sim_cards'][number]): string {
  const operator = sim.name_operator ? ` (${sim.name_operator})` : '';
  const number = sim.phone_number && sim.phone_number_source ? `: ${sim.phone_number}, ${NUMBER_SOURCE[sim.phone_number_source]}` : ': number unknown';
  return `SIM ${sim.index + 1}${operator}${number}`;
}

function handedOut(queue: DeviceQueue, limits: Limits): string {
  const part = (count: number, limit: number | null, span: string) => `${count}${limit === null ? '' : ` of ${limit}`} in the last ${span}`;
  return [part(queue.sent_last_minute, limits.per_minute, 'minute'), part(queue.sent_last_hour, limits.per_hour, 'hour'), part(queue.sent_last_day, limits.per_day, 'day')].join('; ');
}

function pauseText(device: DeviceDetail): string {
  const reason = device.paused_reason ? ` (${device.paused_reason})` : '';
  if (isPaused(device)) return `until ${formatTime(device.paused_until)}${reason}`;
  if (device.paused_until) return `no; last paused until ${formatTime(device.paused_until)}${reason}`;
  return 'no';
}

/** What the phone keeps while it does not forward what it receives (forward_incoming_sms off). */
function incomingHeldText(device: DeviceDetail): string {
  if (device.incoming_held === null) return 'not reported';
  if (device.incoming_held === 0) return 'none';
  const count = device.incoming_held === 1 ? '1 SMS' : `${device.incoming_held.toLocaleString('en')} SMS`;
  return device.forward_incoming_sms ? `${count}, being forwarded` : `${count}, forwarded once "Forward incoming SMS" is on`;
}
