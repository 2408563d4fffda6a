// The SMPP upstream link at a steady rate: one SmppLink (window 10) bound as a transceiver to an
// SMSC in a child process (the smpp package's server) that answers every submit_sm at once and
// sends its DELIVRD receipt right after. SMS are submitted open-loop at UPSTREAM_BENCH_RATE a
// second (default 200) for UPSTREAM_BENCH_SECONDS (default 20), then the run waits for the last
// receipt (at most 30 s more) and stops by itself.
//
// Beside it, in the same run and against the same SMSC, the baseline: the smpp package's own
// client Session sending the same submit_sm at the same rate with the same window, answering the
// receipts; what the link costs on top is the difference.
//
// Printed: submit_sm accepted a second, submit latency (submit() called to its answer, the wait
// for the window and the bucket included) p50 / p95, receipt latency (submit() called to the
// receipt heard) p50 / p95, and the CPU of this process (the link's) per SMS, and of the SMSC's.
//
//   npx tsx scripts/bench/smpp-upstream.ts          UPSTREAM_BENCH_SECONDS=5 for a quick look,
//                                                   UPSTREAM_BENCH_LINK_FIRST=1 to run the link first
import smpp, { type PDU, type Session } from 'smpp';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/common/logger.ts';
import type { UpstreamReceipt } from '../../src/modules/upstreams/links/link.ts';
import { SmppLink } from '../../src/modules/upstreams/links/smpp/index.ts';
import { positiveIntegerSetting, printTable, processCpuMs, spawnReady } from './support.ts';

const RATE = positiveIntegerSetting('UPSTREAM_BENCH_RATE', 200);
const SECONDS = positiveIntegerSetting('UPSTREAM_BENCH_SECONDS', 20);
const WINDOW = 10;
const DRAIN_MS = 30_000;
const TEXT = 'Your code is 482913. It expires in 10 minutes.';

if (process.argv[2] === 'smsc') {
  serveSmsc();
} else {
  await main();
}

/** The child: an SMSC answering every submit_sm at once, then sending its DELIVRD receipt. */
function serveSmsc(): void {
  let messageIds = 0;
  const server = smpp.createServer({}, (session: Session) => {
    // An SMSC answers small PDUs one after the other: without this, Nagle holds each receipt back behind the response before it.
    session.socket.setNoDelay(true);
    session.on('error', () => undefined);
    for (const bind of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) session.on(bind, (pdu: PDU) => session.send(pdu.response({ system_id: 'BENCHSMSC' })));
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => session.send(pdu.response()));
    session.on('submit_sm', (pdu: PDU) => {
      const id = (++messageIds).toString(16).toUpperCase();
      session.send(pdu.response({ message_id: id }));
      session.deliver_sm({
        esm_class: 4,
        source_addr: pdu.destination_addr,
        destination_addr: pdu.source_addr,
        receipted_message_id: id,
        message_state: 2,
        short_message: `id:${id} sub:001 dlvrd:001 submit date:2611291200 done date:2611291200 stat:DELIVRD err:000 text:`,
      });
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port })}\n`));
}

interface RunResult {
  sent: number;
  accepted: number;
  seconds: number;
  submitMs: number[];
  receiptMs: number[];
  cpuMs: number;
  smscCpuMs: number;
}

interface Sender {
  /** Submits one SMS; resolves with its provider id (undefined: refused). */
  submit(index: number): Promise<string | undefined>;
  /** Called with the provider id of each receipt heard. */
  onReceipt: (providerId: string) => void;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const smsc = await spawnReady([fileURLToPath(import.meta.url), 'smsc'], {}, (line) => line.ready === true, 30_000);
  const port = smsc.ready.port as number;
  const smscPid = smsc.child.pid!;
  try {
    process.stdout.write(`SMPP upstream link: ${RATE} SMS/s for ${SECONDS} s (${RATE * SECONDS} SMS), window ${WINDOW}, against an SMSC in a child process\n`);
    // The first run warms up the codec both share: UPSTREAM_BENCH_LINK_FIRST=1 gives the warm-up to the baseline instead.
    let baseline: RunResult;
    let link: RunResult;
    if (process.env.UPSTREAM_BENCH_LINK_FIRST === '1') {
      link = await measure(await smppLink(port), smscPid);
      baseline = await measure(await packageSession(port), smscPid);
    } else {
      baseline = await measure(await packageSession(port), smscPid);
      link = await measure(await smppLink(port), smscPid);
    }
    const row = (name: string, result: RunResult) => ({
      sender: name,
      SMS: result.sent,
      accepted: result.accepted,
      'accepted/s': (result.accepted / result.seconds).toFixed(1),
      'submit p50 ms': percentile(result.submitMs, 0.5).toFixed(2),
      'submit p95 ms': percentile(result.submitMs, 0.95).toFixed(2),
      'receipt p50 ms': percentile(result.receiptMs, 0.5).toFixed(2),
      'receipt p95 ms': percentile(result.receiptMs, 0.95).toFixed(2),
      receipts: result.receiptMs.length,
      'CPU ms/SMS': (result.cpuMs / Math.max(1, result.sent)).toFixed(3),
      'SMSC CPU ms/SMS': (result.smscCpuMs / Math.max(1, result.sent)).toFixed(3),
    });
    printTable('Upstream SMPP link (this process\'s CPU per SMS; the SMSC in its own process)', [row('smpp package Session (baseline)', baseline), row('SmppLink', link)]);
  } finally {
    await smsc.stop();
  }
}

/** Submits RATE a second for SECONDS, open-loop, then waits for the receipts. */
async function measure(sender: Sender, smscPid: number): Promise<RunResult> {
  const count = RATE * SECONDS;
  const startedAt = new Map<string, number>();
  const receiptMs: number[] = [];
  let receipts = 0;
  let allReceipts: () => void = () => undefined;
  const receiptsIn = new Promise<void>((resolve) => (allReceipts = resolve));
  const early = new Map<string, number>();
  sender.onReceipt = (providerId) => {
    const now = performance.now();
    const started = startedAt.get(providerId);
    // A receipt can beat the submit_sm_resp's promise to this code: kept until the id is known.
    if (started === undefined) early.set(providerId, now);
    else receiptMs.push(now - started);
    if (++receipts === count) allReceipts();
  };
  const submitMs: number[] = [];
  let accepted = 0;
  const cpuBefore = process.cpuUsage();
  const smscBefore = processCpuMs(smscPid) ?? 0;
  const began = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = began + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const started = performance.now();
    pending.push(
      sender.submit(i).then((providerId) => {
        submitMs.push(performance.now() - started);
        if (providerId === undefined) return;
        accepted++;
        startedAt.set(providerId, started);
        const heard = early.get(providerId);
        if (heard !== undefined) receiptMs.push(heard - started);
      }),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - began) / 1000;
  await Promise.race([receiptsIn, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
  const cpu = process.cpuUsage(cpuBefore);
  const smscCpuMs = (processCpuMs(smscPid) ?? 0) - smscBefore;
  await sender.close();
  return { sent: count, accepted, seconds, submitMs, receiptMs, cpuMs: (cpu.user + cpu.system) / 1000, smscCpuMs };
}

async function smppLink(port: number): Promise<Sender> {
  const sender: Sender = { submit: async () => undefined, onReceipt: () => undefined, close: async () => undefined };
  const link = new SmppLink(
    { host: '127.0.0.1', port, tls: false, systemId: 'bench', password: 'bench', sourceAddr: 'Bench', windowSize: WINDOW, throughputPerSecond: RATE * 2 },
    { receipt: (receipt: UpstreamReceipt) => sender.onReceipt(receipt.providerId), incoming: () => undefined, stateChanged: () => undefined },
    createLogger('warn'),
  );
  await until(() => link.status.state === 'ready', 10_000);
  sender.submit = async (index) => {
    const outcome = await link.submit({ smsId: `bench-${index}`, phone: `+4477009${String(index % 100_000).padStart(5, '0')}`, text: TEXT, wantsReceipt: true });
    return outcome.accepted ? outcome.providerIds[0] : undefined;
  };
  sender.close = () => link.close();
  return sender;
}

/** The smpp package's client, keeping at most WINDOW submit_sm unanswered, in order, as the link does. */
async function packageSession(port: number): Promise<Sender> {
  const session = await new Promise<Session>((resolve, reject) => {
    const connected = smpp.connect({ url: `smpp://127.0.0.1:${port}`, auto_enquire_link_period: 0 }, () => resolve(connected));
    connected.once('error', reject);
  });
  // As the link does: a submit_sm goes out when it is sent, not when Nagle's algorithm lets it.
  session.socket.setNoDelay(true);
  const sender: Sender = { submit: async () => undefined, onReceipt: () => undefined, close: async () => undefined };
  session.on('deliver_sm', (pdu: PDU) => {
    session.send(pdu.response());
    sender.onReceipt(String(pdu.receipted_message_id));
  });
  session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
  await new Promise<void>((resolve, reject) => session.bind_transceiver({ system_id: 'bench', password: 'bench' }, (pdu: PDU) => (pdu.command_status === 0 ? resolve() : reject(new Error('bind refused')))));
  const queue: (() => void)[] = [];
  let inFlight = 0;
  const turn = () => new Promise<void>((resolve) => {
    if (inFlight < WINDOW) {
      inFlight++;
      resolve();
    } else queue.push(() => (inFlight++, resolve()));
  });
  const done = () => {
    inFlight--;
    queue.shift()?.();
  };
  sender.submit = async (index) => {
    await turn();
    const response = await new Promise<PDU>((resolve) =>
      session.submit_sm(
        { source_addr: 'Bench', source_addr_ton: 5, destination_addr: `4477009${String(index % 100_000).padStart(5, '0')}`, dest_addr_ton: 1, dest_addr_npi: 1, registered_delivery: 1, data_coding: 0, short_message: TEXT },
        resolve,
      ),
    );
    done();
    return response.command_status === 0 ? String(response.message_id) : undefined;
  };
  sender.close = () => new Promise<void>((resolve) => session.unbind(() => session.close(() => resolve())));
  return sender;
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the link did not bind');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
