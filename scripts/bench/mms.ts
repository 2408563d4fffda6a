// MMS fan-out: one set of MMS_PARTS parts of MMS_PART_KB KiB (default 3 of 300 KiB) uploaded once,
// then one MMS carrying them to each of MMS_PHONES numbers (default 50), each claimed by its own
// simulated phone (MMS_PHONES real MQTT clients, the device agent), which fetches the parts over
// HTTP with its device credentials (half of the phones whole, half in two Range requests) before
// reporting sent and delivered. Every phone is told to expect one MMS (device_id).
//
// The gateway runs as a child process on a fresh PostgreSQL database. Its memory is sampled from
// its /metrics (process_resident_memory_bytes, nodejs_heap_size_used_bytes) every 50 ms: idle
// before anything, after the uploads, and through the fan-out. The parts are streamed from the
// store to the phones, never held whole: the fan-out moves MMS_PHONES x parts x size bytes
// (44 MB by default) while the gateway's RSS and heap should stay near where they were.
//
//   npx tsx scripts/bench/mms.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freshDatabase, liftDeviceLimits, METRICS_SCRAPE_HEADERS, prepareTenant, printTable, spawnGateway } from './support.ts';

const PHONES = Number(process.env.MMS_PHONES ?? 50);
const PARTS = Number(process.env.MMS_PARTS ?? 3);
const PART_KB = Number(process.env.MMS_PART_KB ?? 300);
const SAMPLE_MS = 50;

interface Sample {
  rss: number;
  heap: number;
}

export async function mms(): Promise<Record<string, string | number>[]> {
  const database = await freshDatabase('mms');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-mms-'));
  const tenant = await prepareTenant(database.url, PHONES);
  const gateway = await spawnGateway(database.url, { DATA_DIR: dataDir, MMS_MAX_PART_BYTES: '4mb', MMS_MAX_MESSAGE_BYTES: '16mb' });
  const base = `http://127.0.0.1:${gateway.port}`;
  const auth = { authorization: `Bearer ${tenant.key}` };
  const phones: SimulatedDevice[] = [];
  try {
    await liftDeviceLimits(base, tenant.key, tenant.devices.map((device) => device.id));
    const idle = await settle(base);
    process.stderr.write(`idle sampled; uploading\n`);

    const mediaIds: string[] = [];
    for (let i = 0; i < PARTS; i++) {
      const response = await fetch(`${base}/api/ext/v1/media`, { method: 'POST', headers: { ...auth, 'content-type': 'image/jpeg' }, body: jpeg(PART_KB * 1024, i) });
      if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
      mediaIds.push(((await response.json()) as { id: string }).id);
    }
    const uploaded = await settle(base);

    for (const [index, device] of tenant.devices.entries()) {
      phones.push(
        new SimulatedDevice({
          brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
          apiUrl: base,
          deviceId: device.id,
          token: device.token,
          mmsFetch: index % 2 === 0 ? 'whole' : 'ranges',
          reconnectPeriodMs: 200,
        }),
      );
    }
    await Promise.all(phones.map((phone) => phone.connect()));
    const connected = await settle(base);
    process.stderr.write(`${PHONES} phones connected; sending\n`);

    const delivered = Promise.all(
      phones.map(
        (phone) =>
          new Promise<void>((resolve, reject) => {
            phone.on('report', (_id, status) => {
              if (status === 'delivered') resolve();
              if (status === 'failed_send') reject(new Error(`phone ${phone.id}: failed_send`));
            });
          }),
      ),
    );
    const samples: Sample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // A failed run stops the gateway under the sampler: its error is the run's, not this one.
        const sample = await memory(base).catch(() => undefined);
        if (sample) samples.push(sample);
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    })();
    const started = performance.now();
    await Promise.all(
      phones.map(async (phone, i) => {
        const response = await fetch(`${base}/api/ext/v1/mms`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ phone: `+7916${String(1_000_000 + i).padStart(7, '0')}`, subject: 'bench', media_ids: mediaIds, device_id: phone.id }),
        });
        if (response.status !== 201) throw new Error(`POST /mms answered ${response.status}: ${await response.text()}`);
      }),
    );
    await delivered.finally(() => (sampling = false));
    const elapsedMs = performance.now() - started;
    sampling = false;
    await sampler;

    const fetchedBytes = phones.reduce((sum, phone) => sum + [...phone.mmsFetched.values()].flat().reduce((bytes, part) => bytes + part.size, 0), 0);
    const requests = phones.reduce((sum, phone) => sum + [...phone.mmsFetched.values()].flat().reduce((count, part) => count + part.statuses.length, 0), 0);
    const peak = { rss: Math.max(...samples.map((s) => s.rss)), heap: Math.max(...samples.map((s) => s.heap)) };
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    const rows = [
      { moment: 'idle (connected, nothing stored)', rss_mb: mb(idle.rss), heap_mb: mb(idle.heap) },
      { moment: `after uploading ${PARTS} x ${PART_KB} KiB`, rss_mb: mb(uploaded.rss), heap_mb: mb(uploaded.heap) },
      { moment: `${PHONES} phones connected`, rss_mb: mb(connected.rss), heap_mb: mb(connected.heap) },
      { moment: `fan-out: peak of ${samples.length} samples`, rss_mb: mb(peak.rss), heap_mb: mb(peak.heap) },
      { moment: 'fan-out: median sample', rss_mb: mb(median(samples.map((s) => s.rss))), heap_mb: mb(median(samples.map((s) => s.heap))) },
    ];
    printTable(`MMS fan-out: ${PHONES} MMS of ${PARTS} x ${PART_KB} KiB, each fetched by its phone over HTTP (half whole, half by Range)`, rows);
    printTable('fan-out', [
      {
        mms_delivered: PHONES,
        seconds: (elapsedMs / 1000).toFixed(2),
        bytes_fetched_mb: mb(fetchedBytes),
        http_requests: requests,
        peak_rss_over_connected_mb: mb(peak.rss - connected.rss),
        peak_heap_over_connected_mb: mb(peak.heap - connected.heap),
      },
    ]);
    return rows;
  } finally {
    await Promise.all(phones.map((phone) => phone.stop().catch(() => undefined)));
    await gateway.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The gateway's memory now, from its /metrics. */
async function memory(base: string): Promise<Sample> {
  const text = await (await fetch(`${base}/metrics`, { headers: METRICS_SCRAPE_HEADERS })).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: read('process_resident_memory_bytes'), heap: read('nodejs_heap_size_used_bytes') };
}

/** Memory once the process had a moment to settle (a few samples apart, the last one). */
async function settle(base: string): Promise<Sample> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return memory(base);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function jpeg(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 131 + seed * 7) & 0xff;
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]).copy(bytes, 0);
  return bytes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await mms();
}
