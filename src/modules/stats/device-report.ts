// The device report: per device and per SIM, what the phone did with the SMS it was handed and
// how its canaries fared, over a range of time. Built from three reads made at once (the SMS
// figures, the canary figures, the devices' names); this file only puts them together.
import type { HandledSmsFigures } from '../messages/stats-queries.ts';
import type { CanaryFigures, NamedDevice } from './fleet-queries.ts';

export interface Figures {
  sent: number;
  failedSend: number;
  delivered: number;
  undelivered: number;
  /** delivered / (delivered + undelivered); null when neither. */
  deliveryRatio: number | null;
  toSentMedianMs: number | null;
  toSentP95Ms: number | null;
  toDeliveredMedianMs: number | null;
  toDeliveredP95Ms: number | null;
  canaryEnded: number;
  canaryPassed: number;
  /** canaryPassed / canaryEnded; null when none ended. */
  canaryPassRate: number | null;
}

export interface SimReport extends Figures {
  /** Null: SMS whose SIM was never known (the phone did not say, and none was asked for). */
  simSlot: number | null;
}

export interface DeviceReport extends Figures {
  deviceId: string;
  name: string;
  deleted: boolean;
  /** The SIMs with any figure, by slot (the unknown SIM last). */
  sims: SimReport[];
}

export interface Range {
  from: Date;
  to: Date;
}

export function buildDeviceReport(devices: NamedDevice[], sms: HandledSmsFigures[], canaries: CanaryFigures[]): DeviceReport[] {
  const reports = new Map<string, DeviceReport>(devices.map((device) => [device.id, { deviceId: device.id, name: device.name, deleted: device.deleted, ...emptyFigures(), sims: [] }]));
  const simOf = (report: DeviceReport, slot: number | null): SimReport => {
    let sim = report.sims.find((candidate) => candidate.simSlot === slot);
    if (!sim) {
      sim = { simSlot: slot, ...emptyFigures() };
      report.sims.push(sim);
    }
    return sim;
  };
  for (const row of sms) {
    const report = reports.get(row.deviceId);
    if (!report) continue;
    const target: Figures = row.wholeDevice ? report : simOf(report, row.simSlot);
    Object.assign(target, {
      sent: row.sent,
      failedSend: row.failedSend,
      delivered: row.delivered,
      undelivered: row.undelivered,
      deliveryRatio: ratio(row.delivered, row.delivered + row.undelivered),
      toSentMedianMs: row.toSentMedianMs,
      toSentP95Ms: row.toSentP95Ms,
      toDeliveredMedianMs: row.toDeliveredMedianMs,
      toDeliveredP95Ms: row.toDeliveredP95Ms,
    });
  }
  for (const row of canaries) {
    const report = reports.get(row.deviceId);
    if (!report) continue;
    const target: Figures = row.wholeDevice ? report : simOf(report, row.simSlot);
    Object.assign(target, { canaryEnded: row.ended, canaryPassed: row.passed, canaryPassRate: ratio(row.passed, row.ended) });
  }
  for (const report of reports.values()) report.sims.sort((a, b) => (a.simSlot ?? Infinity) - (b.simSlot ?? Infinity));
  return [...reports.values()];
}

function emptyFigures(): Figures {
  return {
    sent: 0,
    failedSend: 0,
    delivered: 0,
    undelivered: 0,
    deliveryRatio: null,
    toSentMedianMs: null,
    toSentP95Ms: null,
    toDeliveredMedianMs: null,
    toDeliveredP95Ms: null,
    canaryEnded: 0,
    canaryPassed: 0,
    canaryPassRate: null,
  };
}

/** Four decimals: a ratio, not a float's noise. */
function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}
