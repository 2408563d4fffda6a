// What end-to-end encryption and data SMS cost. In this process: deriving a key (PBKDF2-SHA256 at
// the default 100,000 iterations) and encrypting one value, which a client pays twice per SMS
// (recipient and text) and a phone pays twice to decrypt; and the gateway's only work on
// ciphertext, checking a value's format. Then, on a spawned `sms-gateway serve` on a fresh
// PostgreSQL database with no phone (so the SMS wait in the pool), the accept rate of
// POST /sms/encrypted and POST /sms/data against POST /sms, the same number in flight, one after
// the other. The encrypted bodies reuse a few ciphertexts made beforehand: the gateway cannot
// tell, and making 2 values an SMS would time the client, not the gateway.
//
//   npx tsx scripts/bench/end-to-end.ts       E2E_BENCH_COUNT=500 for a quick look
import { request } from 'undici';
import { encrypt, parseEncrypted } from '../../src/common/end-to-end.ts';
import { freshDatabase, prepareTenant, printTable, ratio, spawnGateway } from './support.ts';

const COUNT = Number(process.env.E2E_BENCH_COUNT ?? 2_000);
const IN_FLIGHT = 50;
if (!Number.isInteger(COUNT) || COUNT < 10 || COUNT > 100_000) throw new Error('E2E_BENCH_COUNT must be a whole number from 10 to 100,000');

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

async function cryptoCosts(): Promise<Record<string, string | number>[]> {
  const text = 'Your verification code is 481516. It expires in 10 minutes; do not share it with anyone.';
  const rounds = 20;
  let started = performance.now();
  const sealed: string[] = [];
  for (let i = 0; i < rounds; i++) sealed.push(await encrypt(text, 'bench passphrase'));
  const encryptMs = (performance.now() - started) / rounds;
  // Several at once: PBKDF2 runs on libuv's thread pool (4 threads by default).
  started = performance.now();
  await Promise.all(Array.from({ length: rounds }, () => encrypt(text, 'bench passphrase')));
  const parallelPerSecond = rounds / ((performance.now() - started) / 1000);
  const checks = 100_000;
  started = performance.now();
  for (let i = 0; i < checks; i++) parseEncrypted(sealed[i % rounds]!);
  const checkUs = ((performance.now() - started) * 1000) / checks;
  return [
    { what: 'encrypt one value (key derivation included), one at a time', figure: `${encryptMs.toFixed(1)} ms` },
    { what: 'values encrypted a second, 20 at once', figure: Math.round(parallelPerSecond) },
    { what: 'the gateway checking one value\'s format', figure: `${checkUs.toFixed(1)} µs` },
    { what: 'ciphertext of a 93-character text', figure: `${sealed[0]!.length} characters` },
  ];
}

async function main(): Promise<void> {
  printTable('End-to-end encryption in this process (PBKDF2-SHA256, 100,000 iterations)', await cryptoCosts());

  const pool = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => ({ phone: await encrypt('+79161234567', 'bench'), message: await encrypt(`Encrypted benchmark ${i}`, 'bench') })),
  );
  const database = await freshDatabase('e2e');
  const tenant = await prepareTenant(database.url, 0);
  const gateway = await spawnGateway(database.url);
  const post = async (path: string, body: unknown) => {
    const answer = await request(`http://127.0.0.1:${gateway.port}/api/ext/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await answer.body.dump();
    return answer.statusCode === 201;
  };
  try {
    const kinds: [string, (i: number) => Promise<boolean>][] = [
      ['POST /sms', (i) => post('/sms', { phone: '+79161234567', message: `Plain benchmark ${i}` })],
      ['POST /sms/encrypted', (i) => post('/sms/encrypted', pool[i % pool.length])],
      ['POST /sms/data', (i) => post('/sms/data', { phone: '+79161234567', data: Buffer.from(`data benchmark ${i}`).toString('base64'), port: 16001 })],
    ];
    // A warm-up, then three rounds in rotating order, each kind's median kept: on a shared
    // machine the first kind measured, or one that met a busy moment, would be misjudged.
    await windowed(500, IN_FLIGHT, (i) => post('/sms', { phone: '+79161234567', message: `warm-up ${i}` }));
    const rates = new Map<string, number[]>(kinds.map(([name]) => [name, []]));
    let refused = 0;
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < kinds.length; k++) {
        const [name, job] = kinds[(k + round) % kinds.length]!;
        const run = await windowed(COUNT, IN_FLIGHT, job);
        refused += run.failed;
        rates.get(name)!.push(COUNT / run.seconds);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    const baseline = median(rates.get('POST /sms')!);
    const rows = kinds.map(([name]) => {
      const rate = median(rates.get(name)!);
      return { endpoint: name, 'accepted/s (median of 3)': Math.round(rate), 'all 3': rates.get(name)!.map(Math.round).join(' / '), 'against POST /sms': ratio(rate, baseline) };
    });
    printTable(`Accept rate, ${COUNT} SMS a round, ${IN_FLIGHT} in flight, no phone (the SMS wait in the pool); refused: ${refused}`, rows);
  } finally {
    await gateway.stop();
    await database.drop();
  }
}

await main();
