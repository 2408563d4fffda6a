// SMPP throughput over one bind: submit_sm a second at a window of 10 and of 100 PDUs in flight,
// and delivery receipts (deliver_sm) a second, against the Extended API's accept rate with as
// many requests in flight, measured on the same gateway in the same run.
//
// A fresh gateway (`sms-gateway serve`, its own process) on a fresh PostgreSQL database, 4
// simulated phones with pacing lifted that send and deliver at once, and one ESME (the smpp
// package's client) bound as a transceiver with a credential whose throughput limit is out of
// the way. For each window: SMPP_BENCH_COUNT submit_sm (default 2,000) kept `window` in flight,
// timed to the last submit_sm_resp, then the receipts counted until every SMS's DELIVRD receipt
// has arrived; then as many POST /sms with `window` requests in flight.
//
//   npx tsx scripts/bench/smpp.ts            SMPP_BENCH_COUNT=500 for a quick look
import smpp, { type PDU, type Session } from 'smpp';
import { request } from 'undici';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freePort, freshDatabase, liftDeviceLimits, prepareTenant, printTable, ratio, spawnGateway } from './support.ts';

const COUNT = Number(process.env.SMPP_BENCH_COUNT ?? 2_000);
const WINDOWS = [10, 100];
const RECEIPT_TIMEOUT_MS = 120_000;
if (!Number.isInteger(COUNT) || COUNT < 10 || COUNT > 100_000) throw new Error('SMPP_BENCH_COUNT must be a whole number from 10 to 100,000');

interface Esme {
  session: Session;
  receipts: number;
  onReceipt?: () => void;
}

function connectEsme(port: number): Promise<Esme> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ url: `smpp://127.0.0.1:${port}`, auto_enquire_link_period: 0 }, () => {
      const esme: Esme = { session, receipts: 0 };
      session.on('pdu', (pdu: PDU) => {
        if (pdu.command === 'enquire_link') session.send(pdu.response());
        if (pdu.command !== 'deliver_sm') return;
        session.send(pdu.response());
        if (/stat:DELIVRD/.test(receiptText(pdu.short_message))) {
          esme.receipts++;
          esme.onReceipt?.();
        }
      });
      resolve(esme);
    });
    session.once('error', reject);
  });
}

/** A receipt's text: the smpp package hands short_message as { message } or as the text itself. */
function receiptText(shortMessage: unknown): string {
  if (typeof shortMessage === 'object' && shortMessage !== null && 'message' in shortMessage) return String((shortMessage as { message: unknown }).message);
  return String(shortMessage ?? '');
}

function call(session: Session, command: string, fields: Record<string, unknown>): Promise<PDU> {
  return new Promise((resolve, reject) => {
    if (!session.send(new smpp.PDU(command, fields), resolve)) reject(new Error('the SMPP session is closed'));
  });
}

/** Runs `count` jobs keeping `window` of them in flight; answers the seconds it took and the jobs that failed. */
async function windowed(count: number, window: number, job: (i: number) => Promise<boolean>): Promise<{ seconds: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      if (!(await job(i))) failed++;
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
  return { seconds: (performance.now() - started) / 1000, failed };
}

async function main(): Promise<void> {
  const database = await freshDatabase('smpp');
  const tenant = await prepareTenant(database.url, 4);
  const smppPort = await freePort();
  const gateway = await spawnGateway(database.url, { SMPP_PORT: String(smppPort) });
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  const phones = tenant.devices.map((device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }));
  const rows: Record<string, string | number>[] = [];
  try {
    await Promise.all(phones.map((phone) => phone.connect()));
    await liftDeviceLimits(baseUrl, tenant.key, tenant.devices.map((device) => device.id));
    const api = (method: 'POST', path: string, body: unknown) =>
      request(`${baseUrl}/api/ext/v1${path}`, { method, headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    for (const window of WINDOWS) {
      const created = await api('POST', '/smpp/credentials', { system_id: `bench${window}`, throughput_per_second: 10_000, window_size: window });
      const credential = (await created.body.json()) as { system_id: string; password: string };
      if (created.statusCode !== 201) throw new Error(`could not create an SMPP credential: ${JSON.stringify(credential)}`);
      const esme = await connectEsme(smppPort);
      const bound = await call(esme.session, 'bind_transceiver', { system_id: credential.system_id, password: credential.password });
      if (bound.command_status !== 0) throw new Error(`bind_transceiver answered status ${bound.command_status}`);

      const allReceipts = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${esme.receipts} of ${COUNT} receipts within ${RECEIPT_TIMEOUT_MS / 1000} s`)), RECEIPT_TIMEOUT_MS);
        esme.onReceipt = () => {
          if (esme.receipts < COUNT) return;
          clearTimeout(timer);
          resolve();
        };
      });
      const started = performance.now();
      const submitted = await windowed(COUNT, window, async (i) => {
        const answer = await call(esme.session, 'submit_sm', { source_addr: 'bench', destination_addr: '+79161234567', short_message: `SMPP benchmark ${i}`, registered_delivery: 1 });
        return answer.command_status === 0;
      });
      await allReceipts;
      const receiptSeconds = (performance.now() - started) / 1000;
      await call(esme.session, 'unbind', {}).catch(() => undefined);
      esme.session.close();

      const posted = await windowed(COUNT, window, async (i) => {
        const answer = await api('POST', '/sms', { phone: '+79161234567', message: `API benchmark ${i}` });
        await answer.body.dump();
        return answer.statusCode === 201;
      });
      const submitRate = COUNT / submitted.seconds;
      const apiRate = COUNT / posted.seconds;
      rows.push({
        window,
        'submit_sm/s': Math.round(submitRate),
        'refused submit_sm': submitted.failed,
        'receipts/s (first submit to last receipt)': Math.round(COUNT / receiptSeconds),
        'POST /sms/s (same in flight)': Math.round(apiRate),
        'refused POST': posted.failed,
        'SMPP / API': ratio(submitRate, apiRate),
      });
    }
    printTable(`SMPP over one bind, ${COUNT} SMS a window, phones delivering at once; the Extended API with as many requests in flight, same gateway`, rows);
  } finally {
    await Promise.all(phones.map((phone) => phone.kill()));
    await gateway.stop();
    await database.drop();
  }
}

await main();
process.exit(0);
