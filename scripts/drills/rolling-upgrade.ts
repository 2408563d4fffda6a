// Drill: a rolling upgrade across a migration, under load (docs/deployment.md "Upgrading without
// downtime").
//
// Two releases on one PostgreSQL database (a database of the drill's own) and one Redis: the
// previous release is the last commit before the newest migration was added, checked out in a
// git worktree (node_modules linked), the new one is this checkout. Simulated phones (half of
// them first, the other half once the new node is up) take SMS posted at a steady rate through a
// balancer in the drill's process (HTTP round robin, MQTT to the node with fewest connections).
//   1. node A, previous release, migrates the empty database and serves;
//   2. node B, new release, starts beside it: it applies the newest migration while A serves,
//      and both serve on the migrated schema;
//   3. A is taken out of the balancer and stopped; node C, new release, replaces it; A's phones
//      reconnect to B and C.
// It passes when every SMS the API accepted is final (0 lost) and no SMS was sent twice.
//
//   npx tsx scripts/drills/rolling-upgrade.ts
//   ROLLING_UPGRADE_PHASE_SECONDS=5 npx tsx scripts/drills/rolling-upgrade.ts   (quick)
//   ROLLING_UPGRADE_PREVIOUS=<commit> npx tsx scripts/drills/rolling-upgrade.ts (from the release you run)
//
// Settings (environment): ROLLING_UPGRADE_RATE (SMS a second, 10), ROLLING_UPGRADE_PHONES (20),
// ROLLING_UPGRADE_PHASE_SECONDS (each phase's length, 15), ROLLING_UPGRADE_DRAIN_SECONDS (the bound
// for every SMS to be final once posting stops, 60), ROLLING_UPGRADE_LOG_LEVEL (the nodes' log on
// stderr, default error: a 500 shows its cause), DRILL_PG_URL, DRILL_REDIS_URL (redis://127.0.0.1:6379).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, symlinkSync, existsSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexModule from 'knex';
import { migrations } from '../../db/migrations/index.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { freshDatabase } from './support/fresh-database.ts';
import { readNumber, sleep, startSmsLoad } from './support/drill-kit.ts';

const NAME = 'rolling-upgrade';
const RATE = readNumber(NAME, 'ROLLING_UPGRADE_RATE', 10, 1, 500);
const PHONES = readNumber(NAME, 'ROLLING_UPGRADE_PHONES', 20, 2, 500);
const PHASE_S = readNumber(NAME, 'ROLLING_UPGRADE_PHASE_SECONDS', 15, 1, 600);
const DRAIN_S = readNumber(NAME, 'ROLLING_UPGRADE_DRAIN_SECONDS', 60, 1, 600);
const REDIS_URL = process.env.DRILL_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FINAL = new Set(['delivered', 'undelivered', 'failed_send', 'failed_delivery']);
const STARTUP_TIMEOUT_MS = 180_000;
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** A TCP balancer over the nodes' ports: round robin (HTTP) or fewest connections (MQTT). */
class Balancer {
  private readonly backends: { node: string; port: number; open: number }[] = [];
  private next = 0;
  private readonly server: Server;
  constructor(private readonly mode: 'round robin' | 'fewest connections') {
    this.server = createServer((client) => this.forward(client));
  }
  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }
  add(node: string, port: number): void {
    this.backends.push({ node, port, open: 0 });
  }
  /** Out of rotation: no new connection goes to it (those open stay until the node closes them). */
  remove(node: string): void {
    const index = this.backends.findIndex((backend) => backend.node === node);
    if (index >= 0) this.backends.splice(index, 1);
  }
  private forward(client: Socket): void {
    const backend =
      this.mode === 'round robin' ? this.backends[this.next++ % Math.max(1, this.backends.length)] : [...this.backends].sort((a, b) => a.open - b.open)[0];
    if (!backend) return void client.destroy();
    backend.open++;
    const upstream = createConnection(backend.port, '127.0.0.1');
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    let counted = true;
    const uncount = () => {
      if (counted) backend.open--;
      counted = false;
    };
    client.on('error', close).on('close', () => (close(), uncount()));
    upstream.on('error', close).on('close', () => (close(), uncount()));
    client.pipe(upstream).pipe(client);
  }
  close(): void {
    this.server.close();
  }
}

interface Node {
  name: string;
  release: string;
  port: number;
  mqttPort: number;
  key?: string;
  startedInMs: number;
  stop(): Promise<void>;
}

async function startNode(name: string, release: string, root: string, env: Record<string, string>, tenant?: string): Promise<Node> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./support/release-node.ts', import.meta.url))], {
    cwd: root,
    env: { ...process.env, ...env, NODE_ID: name, RELEASE_NODE: JSON.stringify({ root, tenant }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ port: number; mqttPort: number; key?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node ${name} did not start within ${STARTUP_TIMEOUT_MS / 1000} s`)), STARTUP_TIMEOUT_MS);
    child.once('message', (message: { error?: string }) => {
      clearTimeout(timer);
      if (message.error) reject(new Error(message.error));
      else resolve(message as never);
    });
    void exited.then(() => (clearTimeout(timer), reject(new Error(`node ${name} (${release}) exited with code ${child.exitCode} before it served`))));
  });
  return {
    name,
    release,
    ...ready,
    startedInMs: Date.now() - started,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The release to upgrade from, checked out beside this one: ROLLING_UPGRADE_PREVIOUS when set (an
 * upgrade may cross several migrations, a contract step among them), else the last commit before
 * the newest migration was added.
 */
function previousRelease(newest: string): { commit: string; root: string; remove: () => void } {
  const commit = process.env.ROLLING_UPGRADE_PREVIOUS ? chosenCommit(process.env.ROLLING_UPGRADE_PREVIOUS) : commitBefore(newest);
  const parent = mkdtempSync(join(tmpdir(), 'rolling-upgrade-'));
  const root = join(parent, 'previous');
  git('worktree', 'add', '--detach', root, commit);
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  if (existsSync(join(ROOT, 'dist'))) symlinkSync(join(ROOT, 'dist'), join(root, 'dist'));
  return {
    commit,
    root,
    remove: () => {
      try {
        git('worktree', 'remove', '--force', root);
      } catch {
        // Not a worktree any more (removed by hand): its files only.
      }
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

function commitBefore(migration: string): string {
  const added = git('log', '--diff-filter=A', '--format=%H', '--', `db/migrations/${migration}.ts`).split('\n').pop();
  if (!added) throw new Error(`no commit adds db/migrations/${migration}.ts`);
  return git('rev-parse', '--short', `${added}^`);
}

function chosenCommit(revision: string): string {
  try {
    return git('rev-parse', '--short', '--verify', '--end-of-options', `${revision}^{commit}`);
  } catch {
    throw new Error(`ROLLING_UPGRADE_PREVIOUS: "${revision}" is not a commit of this repository`);
  }
}

async function main(): Promise<{ pass: boolean; summary: string }> {
  const newest = migrations[migrations.length - 1]![0];
  const previous = previousRelease(newest);
  const current = git('rev-parse', '--short', 'HEAD');
  const database = await freshDatabase('rolling');
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: `rolling-upgrade-${randomBytes(4).toString('hex')}`,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    SHUTDOWN_DRAIN: '0',
  };
  const http = new Balancer('round robin');
  const mqtt = new Balancer('fewest connections');
  const nodes: Node[] = [];
  const fleets: Fleet[] = [];
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  try {
    const httpPort = await http.listen();
    const mqttPort = await mqtt.listen();
    const join = (node: Node) => {
      http.add(node.name, node.port);
      mqtt.add(node.name, node.mqttPort);
    };
    console.log(`previous release ${previous.commit} (before ${newest}), new release ${current}; ${PHONES} phones, ${RATE} SMS/s, phases of ${PHASE_S} s`);

    const a = await startNode('node-a', previous.commit, previous.root, env, 'rolling-upgrade-drill');
    nodes.push(a);
    join(a);
    const key = a.key!;
    const applied = async () => (await db('knex_migrations').pluck('name')) as string[];
    console.log(`node-a (${previous.commit}) serving in ${seconds(a.startedInMs)} s; ${(await applied()).length} migrations, ${newest} ${(await applied()).includes(newest) ? 'applied' : 'not yet'}`);

    const startFleet = async (count: number) => {
      const fleet = new Fleet({
        count,
        apiUrl: `http://127.0.0.1:${httpPort}`,
        apiKey: key,
        brokerUrl: `mqtt://127.0.0.1:${mqttPort}`,
        device: { delays: { processing: 20, sent: 50, delivered: 50 } },
      });
      fleets.push(fleet);
      await fleet.start();
      // No pacing: the drill's rate is more than its phones may send under the default limits
      // (20 a minute each), and a queue growing behind the limits would hide what the upgrade does.
      for (const device of fleet.devices) {
        const response = await fetch(`http://127.0.0.1:${httpPort}/api/ext/v1/devices/${device.id}/settings`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } }),
        });
        if (response.status !== 200) throw new Error(`a phone's limits could not be lifted: ${response.status} ${await response.text()}`);
      }
    };
    await startFleet(Math.floor(PHONES / 2));
    const load = startSmsLoad({ apiUrl: `http://127.0.0.1:${httpPort}/api/ext/v1`, key, rate: RATE, timeoutMs: 10_000 });
    const t0 = Date.now();
    const mark = (what: string) => console.log(`t=${seconds(Date.now() - t0).padStart(5)} s  ${what} (${load.accepted.length} accepted so far)`);
    await sleep(PHASE_S * 1000);

    mark(`starting node-b (${current}): it migrates while node-a serves`);
    const b = await startNode('node-b', current, ROOT, env);
    nodes.push(b);
    join(b);
    mark(`node-b serving in ${seconds(b.startedInMs)} s; ${newest} ${(await applied()).includes(newest) ? 'applied' : 'NOT applied'}; both releases serve`);
    const acceptedBeforeBoth = load.accepted.length;
    await startFleet(PHONES - Math.floor(PHONES / 2));
    // What a node of the previous release does if it restarts now (a crash, a host reboot): it
    // meets a migration it does not know. Told, not judged: a release that predates
    // src/storage/newer-database.ts refuses to start, one that has it starts.
    const restarted = await startNode('node-a-restarted', previous.commit, previous.root, env).then(
      async (node) => (await node.stop(), 'started'),
      (error: Error) => `did not start: "${error.message}"`,
    );
    mark(`a node of the previous release restarted on the migrated database ${restarted}`);
    await sleep(PHASE_S * 1000);
    const acceptedWhileBoth = load.accepted.length - acceptedBeforeBoth;

    mark('node-a out of the balancer and stopped');
    http.remove('node-a');
    mqtt.remove('node-a');
    await a.stop();
    nodes.splice(nodes.indexOf(a), 1);
    const c = await startNode('node-c', current, ROOT, env);
    nodes.push(c);
    join(c);
    mark(`node-c (${current}) serving in ${seconds(c.startedInMs)} s, in node-a's place`);
    await sleep(PHASE_S * 1000);
    await load.stop();
    const postsEndedAt = Date.now();
    mark('posting stopped');

    let open = load.accepted.length;
    let drainedAt: number | undefined;
    while (Date.now() < postsEndedAt + DRAIN_S * 1000) {
      const rows = (await db('sms').whereIn('id', load.accepted).whereNotIn('status', [...FINAL]).count({ n: '*' })) as { n: number }[];
      const missing = load.accepted.length - Number(((await db('sms').whereIn('id', load.accepted).count({ n: '*' })) as { n: number }[])[0]!.n);
      open = Number(rows[0]!.n) + missing;
      if (open === 0) {
        drainedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    const byStatus = (await db('sms').whereIn('id', load.accepted).select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number }[];
    const sentBy = new Map<string, number>();
    for (const device of fleets.flatMap((fleet) => fleet.devices)) for (const [id, count] of device.sendCount) sentBy.set(id, (sentBy.get(id) ?? 0) + count);
    const sentTwice = [...sentBy.values()].filter((count) => count > 1).length;
    const reconnects = fleets.flatMap((fleet) => fleet.devices).reduce((sum, device) => sum + device.reconnects, 0);
    const refusedTotal = load.refusedTotal();
    const refused = [...load.refused].map(([reason, n]) => `${reason}: ${n}`).join(', ') || 'none';

    console.log(`accepted ${load.accepted.length} (${acceptedWhileBoth} while both releases served); refused ${refusedTotal} (${refused})`);
    console.log(`final statuses: ${byStatus.map((row) => `${row.status} ${row.n}`).join(', ')}`);
    console.log(drainedAt ? `every accepted SMS final ${seconds(drainedAt - postsEndedAt)} s after posting stopped` : `${open} accepted SMS not final ${DRAIN_S} s after posting stopped`);
    console.log(`lost ${open}; sent twice ${sentTwice}; phone reconnects ${reconnects}`);

    const problems: string[] = [];
    if (open > 0) problems.push(`${open} accepted SMS lost (not final within ${DRAIN_S} s)`);
    if (sentTwice > 0) problems.push(`${sentTwice} SMS sent twice`);
    if (acceptedWhileBoth === 0) problems.push('no SMS accepted while both releases served');
    if (!(await applied()).includes(newest)) problems.push(`${newest} was never applied`);
    const figures = `${load.accepted.length} accepted (${acceptedWhileBoth} while ${previous.commit} and ${current} served together), ${refusedTotal} refused, 0 lost, 0 sent twice, ${reconnects} reconnects`;
    return problems.length === 0 ? { pass: true, summary: figures } : { pass: false, summary: problems.join('; ') };
  } finally {
    await Promise.all(fleets.map((fleet) => fleet.stop().catch(() => {})));
    await Promise.all(nodes.map((node) => node.stop().catch(() => {})));
    http.close();
    mqtt.close();
    await db.destroy().catch(() => {});
    await database.drop().catch(() => {});
    previous.remove();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`DRILL ${NAME}: FAIL interrupted by ${signal}`);
    process.exit(1);
  });
}

main().then(
  ({ pass, summary }) => {
    console.log(`DRILL ${NAME}: ${pass ? 'PASS' : 'FAIL'} ${summary}`);
    process.exit(pass ? 0 : 1);
  },
  (error: unknown) => {
    console.log(`DRILL ${NAME}: FAIL ${(error as Error).message?.split('\n')[0] ?? String(error)}`);
    process.exit(1);
  },
);
