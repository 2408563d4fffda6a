// Drill: one ESME's oversized text must not freeze the gateway for the other tenants.
//
// The attack as it was measured: a credential with the default limits (10 submissions a second,
// window 10) sends 10 submit_sm in a row whose message_payload is 16,000 octets (legal: the PDU
// stays under the codec's 16 KB), then the four 16,000-octet parts of one SAR-concatenated
// message. The gateway counted each text's characters in full before comparing with the 170 it
// sends, and joined the parts before any check: each submission stalled every tenant's HTTP
// for 1-2 s and grew the process by about 250 MB; the four parts stalled it for 30 s. Now the
// text is refused by its size first, a part as soon as it arrives.
//
// Another tenant calls the API throughout (GET /devices and POST /sms in turn, 4 at a time, from
// 127.0.0.2): first alone for a baseline, then during the attack. It passes when every
// submission was refused ESME_RINVMSGLEN, the process grew by less than 100 MB (peak RSS until
// the attack's last answer over RSS before it), and the other tenant saw no refusal and its p99 stayed under
// 200 ms. The load average is printed beside the figures: the machine's own load moves them.
//
//   npx tsx scripts/drills/hostile-smpp-payload.ts
//
// Settings: SMPP_PAYLOAD_SECONDS (how long the other tenant is measured once the attack
// starts, 20; the attack itself is answered within it), SMPP_PAYLOAD_BASELINE_SECONDS (5),
// SMPP_PAYLOAD_OCTETS (16000).
import { loadavg } from 'node:os';
import smpp, { type PDU, type Session } from 'smpp';
import { loadConfig } from '../../src/config.ts';
import { statusName, STATUS } from '../../src/api/smpp/command-status.ts';
import { readNumber, runDrill, sleep } from './support/drill-kit.ts';
import { latencyNote, latencyProblem, refusalNote, refusalProblem, startDrillGateway } from './support/drill-gateway.ts';
import { describeProbe, probe, refusedTotal } from './support/tenant-probe.ts';

const NAME = 'hostile-smpp-payload';
const ATTACK_S = readNumber(NAME, 'SMPP_PAYLOAD_SECONDS', 20, 2, 300);
const BASELINE_S = readNumber(NAME, 'SMPP_PAYLOAD_BASELINE_SECONDS', 5, 1, 60);
const OCTETS = readNumber(NAME, 'SMPP_PAYLOAD_OCTETS', 16_000, 1, 16_200);
const WHOLE_MESSAGES = 10;
const PARTS = 4;
/** The process may grow by less than this during the attack. */
const MAX_GROWTH_MB = 100;

const megabytes = (bytes: number) => bytes / 1024 / 1024;
const load = () => `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;

async function main(): Promise<string | undefined> {
  const defaults = loadConfig({});
  const { gateway, baseUrl, hostile, other } = await startDrillGateway({ smpp: { ...defaults.smpp, port: 0 } });
  const esme = await bound(gateway.smppPort, await gateway.services.smpp.issue(hostile.accountId, {}));
  try {
    const probeOptions = { baseUrl, key: other.key, concurrency: 4, from: '127.0.0.2' };
    const baseline = await probe(probeOptions, { durationMs: BASELINE_S * 1000 });
    console.log(`baseline (no attack, ${BASELINE_S} s): other tenant ${describeProbe(baseline)}; ${load()}`);

    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const during = probe(probeOptions, { durationMs: ATTACK_S * 1000 });
    const started = performance.now();
    const statuses = await attack(esme);
    const answeredMs = performance.now() - started;
    // What the attack cost, read when its last answer came; the probe's own SMS grow the
    // in-memory database afterwards (and before: the baseline RSS is read at the attack's start).
    const growth = megabytes(Math.max(peak, process.memoryUsage().rss) - before);
    const result = await during;
    clearInterval(sampler);
    console.log(`attack: ${WHOLE_MESSAGES} submit_sm with a ${OCTETS}-octet message_payload, then ${PARTS} SAR parts of ${OCTETS} octets; all answered within ${(answeredMs / 1000).toFixed(1)} s: ${describeStatuses(statuses)}`);
    console.log(`during the attack (${ATTACK_S} s): other tenant ${describeProbe(result)}; RSS ${megabytes(before).toFixed(0)} MB before the attack, +${growth.toFixed(0)} MB by its last answer, +${megabytes(peak - before).toFixed(0)} MB by the end of the probe; ${load()}`);

    const counts = (of: typeof result) => ({ calls: of.calls, refused: refusedTotal(of) });
    const accepted = statuses.filter((status) => status !== STATUS.ESME_RINVMSGLEN);
    if (accepted.length > 0) return `${accepted.length} of ${statuses.length} oversized submissions were not refused ESME_RINVMSGLEN (${describeStatuses(accepted)})`;
    if (growth >= MAX_GROWTH_MB) return `the process grew by ${growth.toFixed(0)} MB during the attack (target < ${MAX_GROWTH_MB} MB)`;
    const refusals = refusalProblem(counts(baseline), counts(result));
    if (refusals) return `${refusals} during the attack`;
    const latency = latencyProblem(baseline.p99Ms, result.p99Ms);
    if (latency) return latency;
    console.log(
      `DRILL ${NAME}: PASS ${statuses.length} oversized submissions refused ESME_RINVMSGLEN within ${(answeredMs / 1000).toFixed(1)} s; RSS +${growth.toFixed(0)} MB; other tenant ${refusedTotal(result)} refused${refusalNote(counts(result))}, p99 ${result.p99Ms.toFixed(0)} ms, max ${result.maxMs.toFixed(0)} ms (baseline p99 ${baseline.p99Ms.toFixed(0)} ms)${latencyNote(baseline.p99Ms, result.p99Ms)}; ${load()}`,
    );
    return undefined;
  } finally {
    esme.destroy();
    await gateway.stop();
  }
}

/** The whole messages in a row, then (the throughput limit refilled) the parts; answers every command_status. */
async function attack(esme: Session): Promise<number[]> {
  const payload = Buffer.alloc(OCTETS, 'A');
  const submit = (fields: Record<string, unknown>) =>
    new Promise<number>((resolve) => esme.send(new smpp.PDU('submit_sm', { destination_addr: '+79161234567', dest_addr_ton: 1, short_message: Buffer.alloc(0), message_payload: payload, ...fields }), (pdu: PDU) => resolve(pdu.command_status)));
  const whole = await Promise.all(Array.from({ length: WHOLE_MESSAGES }, () => submit({})));
  await sleep(1_100);
  const parts = await Promise.all(Array.from({ length: PARTS }, (_, i) => submit({ sar_msg_ref_num: 7, sar_total_segments: PARTS, sar_segment_seqnum: i + 1 })));
  return [...whole, ...parts];
}

function bound(port: number, issued: { credential: { system_id: string }; password: string }): Promise<Session> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ url: `smpp://127.0.0.1:${port}`, auto_enquire_link_period: 0 }, () => {
      session.send(new smpp.PDU('bind_transceiver', { system_id: issued.credential.system_id, password: issued.password }), (response: PDU) =>
        response.command_status === STATUS.ESME_ROK ? resolve(session) : reject(new Error(`bind refused: ${statusName(response.command_status)}`)),
      );
    });
    session.on('error', reject);
  });
}

function describeStatuses(statuses: number[]): string {
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(statusName(status), (counts.get(statusName(status)) ?? 0) + 1);
  return [...counts].map(([name, n]) => `${n}x ${name}`).join(', ');
}

runDrill(NAME, (ATTACK_S + BASELINE_S + 180) * 1000, main);
