// A device's health as GET /devices/{id}/health answers it, from what the service read: the
// device, its SIMs' degraded state, its SMS figures and received SMS over the window, and the
// canary probes. The state of each SIM and of the device follows from the reasons found.
//
// Thresholds, as a gateway in production would read its SIMs:
// - canary: a SIM the canary rounds degraded is degraded (canary_send_failed /
//   canary_receive_failed); canaries that failed without pinning the SIM are reasons only
//   (canary_failed_as_sender / _as_receiver, canary_undecided).
// - send ratio: under 50% over at least 10 sends that ended (sent + failed_send) in the window is
//   degraded (low_send_ratio): fewer sends say too little, a few failures are ordinary.
// - no successful send: 3 or more failed sends and none sent in the window is degraded
//   (no_successful_send): a SIM that sends little but fails each time.
// - delivery ratio: under 50% over at least 10 delivery reports is a reason, not degraded
//   (low_delivery_ratio): undelivered SMS are as often the recipients' numbers as the SIM.
// - radio: a device whose agent says its radio cannot send is degraded (radio_cannot_send).
// A SIM with no reason is healthy when it showed it works in the window (an SMS sent or received,
// a canary passed either way), else unknown; the device is degraded when it or a SIM is, healthy
// when a SIM is, else unknown.
import { simCardsWithNumbers } from '../../devices/sim-numbers.ts';
import type { DeviceRow } from '../../devices/types.ts';
import type { DegradedRow, ProbeRow, SendFigures } from './repository.ts';
import type { Assessment } from './verdict.ts';

export const WINDOW_HOURS = 24;
export const CANARY_SHOWN = 20;
export const LOW_RATIO = 0.5;
export const MIN_SENDS_FOR_RATIO = 10;
export const MIN_REPORTS_FOR_RATIO = 10;
export const FAILED_SENDS_WITHOUT_SUCCESS = 3;

type State = 'healthy' | 'degraded' | 'unknown';

export interface Reason {
  code: string;
  detail: string;
  sim_slot: number | null;
}

/** What the service read for one device. */
export interface HealthInputs {
  device: DeviceRow;
  degraded: DegradedRow[];
  figures: SendFigures[];
  received: { sim_slot: number | null; last_received_at: Date }[];
  /** The device's probes, newest first. */
  probes: ProbeRow[];
  /** What the canary rounds say of each SIM of the device that is not degraded, by slot. */
  assessments: Map<number, Assessment>;
}

export function presentHealth(input: HealthInputs) {
  const { device } = input;
  const cards = simCardsWithNumbers(device.sim_cards ?? [], device.sim_numbers);
  const slots = new Set<number>(cards.map((card) => card.index));
  for (const row of input.degraded) if (row.degraded_since !== null) slots.add(row.sim_slot);
  for (const probe of input.probes) {
    if (probe.sender_device_id === device.id) slots.add(probe.sender_sim);
    if (probe.receiver_device_id === device.id) slots.add(probe.receiver_sim);
  }
  // An SMS whose SIM nobody named was sent by the phone's only SIM, when it has one.
  const onlySlot = cards.length === 1 ? cards[0]!.index : null;
  const slotOf = (slot: number | null) => slot ?? onlySlot;
  for (const figure of input.figures) if (slotOf(figure.sim_slot) !== null) slots.add(slotOf(figure.sim_slot)!);

  const sims = [...slots]
    .sort((a, b) => a - b)
    .map((slot) => {
      const figures = sumFigures(input.figures.filter((figure) => slotOf(figure.sim_slot) === slot));
      const lastReceived = latest(input.received.filter((row) => slotOf(row.sim_slot) === slot).map((row) => row.last_received_at));
      const degraded = input.degraded.find((row) => row.sim_slot === slot && row.degraded_since !== null);
      const mine = input.probes.filter((p) => (p.sender_device_id === device.id && p.sender_sim === slot) || (p.receiver_device_id === device.id && p.receiver_sim === slot));
      const reasons = simReasons(slot, figures, degraded, mine, device.id, input.assessments.get(slot));
      const degradedNow = degraded !== undefined || reasons.some((reason) => DEGRADING.has(reason.code));
      const worked = figures.sent > 0 || lastReceived !== null || mine.some((p) => p.result === 'passed');
      const state: State = degradedNow ? 'degraded' : worked ? 'healthy' : 'unknown';
      return {
        sim_slot: slot,
        phone_number: cards.find((card) => card.index === slot)?.phone_number ?? null,
        state,
        fault: degraded?.degraded_fault ?? null,
        degraded_since: degraded?.degraded_since?.toISOString() ?? null,
        reasons,
        sent: figures.sent,
        failed_send: figures.failed_send,
        delivered: figures.delivered,
        undelivered: figures.undelivered,
        send_ratio: ratio(figures.sent, figures.failed_send),
        delivery_ratio: ratio(figures.delivered, figures.undelivered),
        last_sent_at: figures.last_sent_at?.toISOString() ?? null,
        last_received_at: lastReceived?.toISOString() ?? null,
      };
    });

  const deviceReasons: Reason[] = [];
  if (device.radio?.can_send === false) {
    const why = [device.radio.problem, device.radio.detail].filter(Boolean).join(': ');
    deviceReasons.push({ code: 'radio_cannot_send', detail: `its agent says the radio cannot send${why ? ` (${why})` : ''}`, sim_slot: null });
  }
  const state: State =
    deviceReasons.length > 0 || sims.some((sim) => sim.state === 'degraded') ? 'degraded' : sims.some((sim) => sim.state === 'healthy') ? 'healthy' : 'unknown';
  return {
    device_id: device.id,
    state,
    reasons: [...deviceReasons, ...sims.flatMap((sim) => sim.reasons)],
    radio: device.radio ? { can_send: device.radio.can_send, problem: device.radio.problem, detail: device.radio.detail } : null,
    sims,
    canary: canaryResults(input.probes, device.id),
    window_hours: WINDOW_HOURS,
  };
}

/** The reason codes that make a SIM degraded; the others only explain. */
const DEGRADING = new Set(['canary_send_failed', 'canary_receive_failed', 'low_send_ratio', 'no_successful_send']);

function simReasons(slot: number, figures: Omit<SendFigures, 'sim_slot'>, degraded: DegradedRow | undefined, probes: ProbeRow[], deviceId: string, assessment: Assessment | undefined): Reason[] {
  const reasons: Reason[] = [];
  const add = (code: string, detail: string) => reasons.push({ code, detail, sim_slot: slot });
  if (degraded) {
    const since = degraded.degraded_since!.toISOString();
    if (degraded.degraded_fault === 'receive') add('canary_receive_failed', `degraded since ${since}: ${degraded.degraded_reason ?? 'canary SMS sent to it did not arrive'}`);
    else add('canary_send_failed', `degraded since ${since}: ${degraded.degraded_reason ?? 'its canary SMS did not arrive'}`);
  }
  const ended = probes.filter((p) => p.result !== 'pending');
  const asSender = ended.filter((p) => p.sender_device_id === deviceId && p.sender_sim === slot);
  const asReceiver = ended.filter((p) => p.receiver_device_id === deviceId && p.receiver_sim === slot);
  const failedAsSender = asSender.filter((p) => p.result === 'failed').length;
  const failedAsReceiver = asReceiver.filter((p) => p.result === 'failed').length;
  if (failedAsSender > 0) add('canary_failed_as_sender', `${failedAsSender} of the last ${asSender.length} canary SMS it sent did not arrive`);
  if (failedAsReceiver > 0) add('canary_failed_as_receiver', `${failedAsReceiver} of the last ${asReceiver.length} canary SMS sent to it did not arrive`);
  if (!degraded && assessment?.verdict === 'undecided') add('canary_undecided', assessment.reason);
  const attempts = figures.sent + figures.failed_send;
  const sendRatio = ratio(figures.sent, figures.failed_send);
  if (attempts >= MIN_SENDS_FOR_RATIO && sendRatio !== null && sendRatio < LOW_RATIO) {
    add('low_send_ratio', `${figures.sent} of ${attempts} sends in the last ${WINDOW_HOURS} h succeeded (${percent(sendRatio)}), under ${percent(LOW_RATIO)}`);
  } else if (figures.sent === 0 && figures.failed_send >= FAILED_SENDS_WITHOUT_SUCCESS) {
    add('no_successful_send', `${figures.failed_send} sends failed in the last ${WINDOW_HOURS} h and none succeeded`);
  }
  const reports = figures.delivered + figures.undelivered;
  const deliveryRatio = ratio(figures.delivered, figures.undelivered);
  if (reports >= MIN_REPORTS_FOR_RATIO && deliveryRatio !== null && deliveryRatio < LOW_RATIO) {
    add('low_delivery_ratio', `${figures.delivered} of ${reports} delivery reports in the last ${WINDOW_HOURS} h said delivered (${percent(deliveryRatio)})`);
  }
  return reasons;
}

function canaryResults(probes: ProbeRow[], deviceId: string) {
  const results = probes.flatMap((p) => {
    const base = { round: p.round_number, result: p.result, failure: p.failure, round_trip_ms: p.round_trip_ms === null ? null : Number(p.round_trip_ms), at: p.created_at.toISOString() };
    const out = [];
    if (p.sender_device_id === deviceId) out.push({ ...base, role: 'sender' as const, sim_slot: p.sender_sim, partner_device_id: p.receiver_device_id, partner_sim_slot: p.receiver_sim });
    if (p.receiver_device_id === deviceId) out.push({ ...base, role: 'receiver' as const, sim_slot: p.receiver_sim, partner_device_id: p.sender_device_id, partner_sim_slot: p.sender_sim });
    return out;
  });
  return results.slice(0, CANARY_SHOWN).map(({ round, role, sim_slot, partner_device_id, partner_sim_slot, result, failure, round_trip_ms, at }) => ({
    round,
    role,
    sim_slot,
    partner_device_id,
    partner_sim_slot,
    result,
    failure,
    round_trip_ms,
    at,
  }));
}

function sumFigures(rows: SendFigures[]): Omit<SendFigures, 'sim_slot'> {
  return {
    sent: rows.reduce((sum, row) => sum + row.sent, 0),
    failed_send: rows.reduce((sum, row) => sum + row.failed_send, 0),
    delivered: rows.reduce((sum, row) => sum + row.delivered, 0),
    undelivered: rows.reduce((sum, row) => sum + row.undelivered, 0),
    last_sent_at: latest(rows.map((row) => row.last_sent_at).filter((at): at is Date => at !== null)),
  };
}

function latest(dates: Date[]): Date | null {
  return dates.length === 0 ? null : new Date(Math.max(...dates.map((date) => new Date(date).getTime())));
}

function ratio(good: number, bad: number): number | null {
  return good + bad === 0 ? null : Math.round((good / (good + bad)) * 1000) / 1000;
}

const percent = (value: number) => `${Math.round(value * 100)}%`;

export type DeviceHealthView = ReturnType<typeof presentHealth>;
