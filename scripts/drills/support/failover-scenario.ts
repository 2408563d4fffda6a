// The PostgreSQL failover scenario, for the drill (scripts/drills/postgres-failover.ts) and its
// short version in the suite (test/storage/postgres-failover.test.ts): a primary and a
// synchronous standby of the scenario's own (standby-pair.ts), an in-process gateway whose
// DATABASE_URL names both, simulated phones (src/simulator) taking the SMS that a client posts
// at a steady rate. The primary is killed (immediate stop, as a crash), the standby promoted a
// moment later; posting goes on throughout. What it measures: the gap (from the kill to the first
// 201 to a post made after it), the SMS answered 201 missing on the new primary, the SMS sent
// twice or handed to two phones, the SMS not sent within the bound after the gap, and every
// answer other than 201 (expected: 503 database_unavailable with Retry-After, during the gap only).
import { Writable } from 'node:stream';
import pg from 'pg';
import { loadConfig, type Config, type LogLevel } from '../../../src/config.ts';
import { createLogger } from '../../../src/common/logger.ts';
import { Gateway } from '../../../src/gateway.ts';
import { Fleet } from '../../../src/simulator/fleet.ts';
import { PERMISSIONS } from '../../../src/modules/api-keys/permissions.ts';
import { updateDeviceSettings } from '../../../src/use-cases/update-device-settings.ts';
import { ASYNC_STANDBY_WARNING } from '../../../src/storage/standby-durability.ts';
import { StandbyPair } from './standby-pair.ts';

export interface FailoverSettings {
  /** SMS posted a second. */
  rate: number;
  phones: number;
  /** Posting before the kill, and after the first 201 that follows it. */
  warmupMs: number;
  /** From the kill to the standby's promotion (a failover manager's detection time). */
  promoteAfterMs: number;
  /** After the gap, how long every SMS answered 201 has to be sent. */
  drainMs: number;
  /** The gateway's log on stdout; silent: none. */
  logLevel: LogLevel;
  /** Progress lines (the drill prints them; the test need not). */
  say?: (line: string) => void;
}

export interface FailoverFigures {
  accepted: number;
  /** Answers other than 201, by status and error code ("503 database_unavailable"), "timeout", "network error". */
  refused: Map<string, number>;
  /** Refusals other than 503 database_unavailable with Retry-After, or answered outside the gap. */
  unexpectedRefusals: string[];
  /** From the kill to the first 201 to a post made after it; undefined: none came. */
  gapMs: number | undefined;
  /** From the kill to the promotion's end. */
  promotedAfterMs: number;
  /** Ids answered 201 that the new primary does not have. */
  lost: string[];
  /** SMS a phone sent more than once, and SMS handed to two phones. */
  sentTwice: number;
  handedToTwo: number;
  /** SMS answered 201 and not yet sent (nor delivered) by the end of the bound. */
  stuck: number;
  /** How long after the gap the last SMS was sent. */
  drainedAfterMs: number | undefined;
  /** Warning and error lines of the gateway, by message. */
  warnings: Map<string, number>;
  /** Whether the gateway warned at start that a standby is asynchronous (it is not: no warning expected). */
  warnedAsync: boolean;
}

interface Answer {
  startedAt: number;
  answeredAt: number;
  status: number | 'timeout' | 'network error';
  code: string | undefined;
  retryAfter: string | null;
  id: string | undefined;
}

const POST_TIMEOUT_MS = 10_000;
const SENT = ['sent', 'delivered'];

/** Warning and error lines the gateway logged, by message. */
class LogTally extends Writable {
  readonly counts = new Map<string, number>();
  constructor(private readonly echo: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString().split('\n')) {
      if (!text.trim()) continue;
      if (this.echo) process.stdout.write(`${text}\n`);
      try {
        const line = JSON.parse(text) as { level: number; msg: string };
        if (line.level >= 40) this.counts.set(line.msg, (this.counts.get(line.msg) ?? 0) + 1);
      } catch {
        // not a log line
      }
    }
    done();
  }
}

export async function runFailover(settings: FailoverSettings): Promise<FailoverFigures> {
  const say = settings.say ?? (() => {});
  const pair = await StandbyPair.create('failover', 'sms_gateway');
  let gateway: Gateway | undefined;
  let fleet: Fleet | undefined;
  let newPrimary: pg.Client | undefined;
  try {
    const databaseUrl = `postgres://postgres@127.0.0.1:${pair.primaryPort},127.0.0.1:${pair.standbyPort}/sms_gateway?target_session_attrs=read-write`;
    const tally = new LogTally(settings.logLevel !== 'silent');
    const defaults = loadConfig({});
    const config: Config = {
      ...defaults,
      port: 0,
      host: '127.0.0.1',
      mqttPort: 0,
      databaseUrl,
      dataDir: ':memory:',
      logLevel: 'warn',
      // Admission control judges load by latency, which the gap itself would trip.
      admission: { maxInFlight: 100_000, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
    };
    gateway = await Gateway.start(config, createLogger(settings.logLevel === 'silent' ? 'warn' : settings.logLevel, tally));
    const account = await gateway.services.accounts.create('postgres-failover');
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    fleet = new Fleet({
      count: settings.phones,
      apiUrl: `http://127.0.0.1:${gateway.httpPort}`,
      apiKey: key,
      brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
      device: { delays: { processing: 20, sent: 50, delivered: 50 } },
    });
    await fleet.start();
    for (const device of fleet.devices) {
      await updateDeviceSettings(gateway.services, gateway.services.db, account.id, device.id, { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } });
    }
    say(`gateway on 127.0.0.1:${gateway.httpPort}, primary on ${pair.primaryPort}, synchronous standby on ${pair.standbyPort}, ${settings.phones} simulated phones, ${settings.rate} SMS/s`);

    const load = startLoad(`http://127.0.0.1:${gateway.httpPort}/api/ext/v1`, key, settings.rate);
    await new Promise((resolve) => setTimeout(resolve, settings.warmupMs));
    const killedAt = Date.now();
    await pair.killPrimary();
    // A request that started while pg_ctl was stopping the server may still have committed on it:
    // the first SMS accepted after the kill is one that started once the server was surely gone.
    const goneAt = Date.now();
    say(`primary killed after ${load.answers.length} answers`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, settings.promoteAfterMs - (Date.now() - killedAt))));
    await pair.promoteStandby();
    const promotedAfterMs = Date.now() - killedAt;
    say(`standby promoted ${promotedAfterMs} ms after the kill`);
    const firstAfter = () => load.answers.find((answer) => answer.status === 201 && answer.startedAt >= goneAt);
    const gapDeadline = Date.now() + settings.drainMs;
    while (!firstAfter() && Date.now() < gapDeadline) await load.nextAnswer();
    const first = firstAfter();
    const gapMs = first ? first.answeredAt - killedAt : undefined;
    say(gapMs === undefined ? 'no SMS accepted after the kill' : `first 201 after the kill: ${gapMs} ms after it`);
    await new Promise((resolve) => setTimeout(resolve, settings.warmupMs));
    await load.stop();
    const gapEnd = first?.answeredAt ?? Date.now();

    const accepted = load.answers.filter((answer) => answer.status === 201 && answer.id).map((answer) => answer.id!);
    newPrimary = new pg.Client({ connectionString: pair.url('standby', 'sms_gateway') });
    await newPrimary.connect();
    const statusOf = async () => {
      const { rows } = await newPrimary!.query<{ id: string; status: string }>('select id::text as id, status from sms where id = any($1::uuid[])', [accepted]);
      return new Map(rows.map((row) => [row.id, row.status]));
    };
    let statuses = await statusOf();
    const drainDeadline = gapEnd + settings.drainMs;
    let drainedAfterMs: number | undefined;
    for (;;) {
      const unsent = accepted.filter((id) => !SENT.includes(statuses.get(id) ?? ''));
      if (unsent.length === 0) {
        drainedAfterMs = Date.now() - gapEnd;
        break;
      }
      if (Date.now() > drainDeadline) break;
      // The phones report in their own time: asked again shortly.
      await new Promise((resolve) => setTimeout(resolve, 100));
      statuses = await statusOf();
    }
    const lost = accepted.filter((id) => !statuses.has(id));
    const stuck = accepted.filter((id) => statuses.has(id) && !SENT.includes(statuses.get(id)!)).length;

    const sentBy = new Map<string, number>();
    const takenBy = new Map<string, number>();
    for (const device of fleet.devices) {
      for (const [id, count] of device.sendCount) sentBy.set(id, (sentBy.get(id) ?? 0) + count);
      for (const id of device.handled.keys()) takenBy.set(id, (takenBy.get(id) ?? 0) + 1);
    }

    const refused = new Map<string, number>();
    const unexpectedRefusals: string[] = [];
    for (const answer of load.answers) {
      if (answer.status === 201) continue;
      const reason = typeof answer.status === 'number' ? `${answer.status} ${answer.code ?? ''}`.trim() : answer.status;
      refused.set(reason, (refused.get(reason) ?? 0) + 1);
      const inGap = answer.answeredAt >= killedAt && answer.startedAt <= gapEnd;
      if (reason !== '503 database_unavailable' || !answer.retryAfter || !inGap) {
        unexpectedRefusals.push(`${reason}${answer.retryAfter ? '' : ' without Retry-After'} at ${answer.answeredAt - killedAt} ms from the kill`);
      }
    }
    return {
      accepted: accepted.length,
      refused,
      unexpectedRefusals,
      gapMs,
      promotedAfterMs,
      lost,
      sentTwice: [...sentBy.values()].filter((count) => count > 1).length,
      handedToTwo: [...takenBy.values()].filter((count) => count > 1).length,
      stuck,
      drainedAfterMs,
      warnings: tally.counts,
      warnedAsync: tally.counts.has(ASYNC_STANDBY_WARNING),
    };
  } finally {
    await newPrimary?.end().catch(() => {});
    await fleet?.stop().catch(() => {});
    await gateway?.stop().catch(() => {});
    pair.removeNow();
  }
}

/** Posts one SMS every 1/rate s, paced against the clock, and keeps every answer. */
function startLoad(apiUrl: string, key: string, rate: number): { answers: Answer[]; nextAnswer(): Promise<void>; stop(): Promise<void> } {
  const answers: Answer[] = [];
  const inFlight = new Set<Promise<void>>();
  let waiters: (() => void)[] = [];
  let sequence = 0;
  const post = async () => {
    const n = ++sequence;
    const startedAt = Date.now();
    let answer: Answer;
    try {
      const response = await fetch(`${apiUrl}/sms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+79161234567', message: `failover ${n}` }),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      const body = (await response.json().catch(() => ({}))) as { id?: string; error?: { code?: string } };
      answer = { startedAt, answeredAt: Date.now(), status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after'), id: body.id };
    } catch (error) {
      answer = { startedAt, answeredAt: Date.now(), status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error', code: undefined, retryAfter: null, id: undefined };
    }
    answers.push(answer);
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  const started = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      while (sequence < due) {
        const request = post().finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    answers,
    nextAnswer: () => new Promise<void>((resolve) => waiters.push(resolve)),
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
}
