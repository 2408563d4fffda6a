// The router: carries each SMS of an account with routes along its rules. It keeps an SMS for the
// phones while a phones rule says so, hands it to an upstream when a rule says so (taking it back
// from a phone that had not acknowledged it: the phone is told, and refused if it reports it
// later), submits it through this node's link, and applies what the provider answers: sent, a
// retry later, or the next rule. Receipts from the provider move it on as a phone's reports do.
//
// Never sent by two routes: a phone sends only once its acknowledgement is accepted, which
// happens only while the SMS is still pending and its own; the router takes only pending SMS,
// under the row's lock. Once taken, the SMS is the upstream's (processing) until the provider
// refuses it, and goes back to the phones only then.
//
// Accounts without routes cost nothing per SMS: the one listener checks a map. The router looks
// at SMS once a second (those new of routed accounts, and those whose wait or retry is due), and
// rereads every account's routes and every upstream every 5 seconds, so that a change made on
// another node applies here within that time (at once on the node that made it).
import type { Clock } from '../../../common/clock.ts';
import type { Logger } from '../../../common/logger.ts';
import { PeriodicRun } from '../../../common/periodic-run.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import type { TaskService } from '../../delivery/task-service.ts';
import type { SmsStatusChange } from '../../delivery/status-change.ts';
import type { SmsRecord } from '../../messages/types.ts';
import type { SmsStatus } from '../../messages/status.ts';
import { transitionPath } from '../../messages/transitions.ts';
import type { LinkListener, UpstreamLinks } from '../links/manager.ts';
import type { UpstreamIncoming, UpstreamLink, UpstreamReceipt } from '../links/link.ts';
import { budgetSpent, pricePerSegment } from '../pricing.ts';
import * as repository from '../repository.ts';
import { outcomeAfterReceipt } from '../receipt-parts.ts';
import type { RoutingChanges } from '../service.ts';
import type { RouteRule, UpstreamRow } from '../types.ts';
import * as handout from './handout.ts';
import type { RoutedRow } from './handout.ts';
import { applies, forPhones, groupAtCreation, groupOf, nextApplicable, NONE_ONLINE, onlineFor, phonesVerdict, type PhonesOnline } from './rules.ts';

/** Tries through one upstream for answers of "later" (throttled, a temporary error) before the next rule. */
export const MAX_TRIES = 5;
/** A submission with no answer after this is taken for lost with its node; its outcome is unknown. */
export const SUBMIT_WATCHDOG_MS = 10 * 60_000;
const PASS_EVERY_MS = 1_000;
/** A new SMS kept from the phones for the routes is looked at by then at the latest (firstHold). */
const FIRST_LOOK_WITHIN_MS = 5_000;
const REFRESH_EVERY_MS = 5_000;
const PAGE = 200;
/** A pass looks again while there is more, up to this many times, so that the timer's passes still get their turn. */
const MAX_LOOKS_PER_PASS = 20;
/** SMS decided at once, each in its transaction (a few of the pool's connections; the rest stay for requests). */
const DECISIONS_AT_ONCE = 4;
/** The reason an SMS ends with when its recipient opted out before any route sent it (as the phones' claim says it). */
const OPTED_OUT = 'recipient_opted_out';

export interface RouterParts {
  db: Database;
  clock: Clock;
  links: UpstreamLinks;
  /** Whether a phone of the account is online, on this node or another, and the device groups with one online. */
  phonesOnline(accountId: string): Promise<PhonesOnline>;
  tasks: Pick<TaskService, 'recordChanges' | 'recordUpstreamAttempt' | 'withdrawn'>;
  /** Stores an SMS a provider passed on to the account. */
  storeIncoming(upstream: UpstreamRow, message: UpstreamIncoming): Promise<void>;
  logger: Logger;
}

interface Submission {
  row: RoutedRow;
  upstream: UpstreamRow;
  link: UpstreamLink;
}

export class UpstreamRouter implements RoutingChanges, LinkListener {
  private routes = new Map<string, RouteRule[]>();
  private upstreams = new Map<string, UpstreamRow>();
  /** SMS this node is submitting now: a watchdog that fires for one of them waits. */
  private readonly submitting = new Map<string, Promise<void>>();
  /** Provider ids (upstream:id) whose SMS is being stored with them: a receipt for one waits. */
  private readonly recording = new Map<string, Promise<void>>();
  private readonly passes: PeriodicRun<void>;
  private readonly refreshes: PeriodicRun<void>;
  private wakeQueued = false;
  private wokenDuringPass = false;
  /** Whether the routes were read once: the first read finds nothing changed. */
  private refreshed = false;
  /** Accounts a phone of which went offline since the last look began. */
  private phonesGone = new Set<string>();

  constructor(private readonly parts: RouterParts) {
    const failures = (what: string) => ({ logger: parts.logger, whileDatabaseDown: `${what} waits for the database`, message: `${what} failed` });
    this.passes = new PeriodicRun(() => this.pass(), { everyMs: PASS_EVERY_MS, runAtStart: false, failures: failures('upstream routing') });
    this.refreshes = new PeriodicRun(() => this.refresh(), { everyMs: REFRESH_EVERY_MS, runAtStart: false, failures: failures('reading the routes') });
  }

  async start(): Promise<void> {
    await this.refresh();
    this.refreshes.start();
    this.passes.start();
  }

  async stop(): Promise<void> {
    await this.refreshes.stop();
    await this.passes.stop();
    await Promise.allSettled([...this.submitting.values()]);
    await this.parts.links.closeAll();
  }

  /** A stored SMS was committed: one of a routed account is looked at now rather than within a second. */
  queued(sms: SmsRecord): void {
    if (this.routes.has(sms.account_id) && sms.kind === 'text' && !sms.is_encrypted && !sms.device_named) this.wake();
  }

  /**
   * Which device group a new SMS is kept for until the router first looks at it (the messages
   * module asks before storing it): that of the first rule applying to it, when a group's or an
   * upstream's, and by when the router is to look at it whatever happens meanwhile. An in-memory
   * look; null for accounts without routes and for SMS routes do not carry.
   */
  firstHold(sms: SmsRecord): { group: string; lookBy: Date } | null {
    const rules = this.routes.get(sms.account_id);
    if (!rules || sms.kind !== 'text' || sms.is_encrypted || sms.device_named) return null;
    const group = groupAtCreation(rules, { phone: sms.phone, priority: sms.priority, category: sms.category ?? null });
    if (group === null) return null;
    // The routes may be cleared before this SMS is committed, and no look of an account without
    // routes would find it: it comes due by itself, and a look with no rules lets any phone take it.
    const from = Math.max(this.parts.clock.now(), sms.send_at?.getTime() ?? 0);
    return { group, lookBy: new Date(from + FIRST_LOOK_WITHIN_MS) };
  }

  /**
   * A phone of the account went offline: the router's next look checks whether it was the last one
   * online, or the last of a device group (lookAgainAfterPhonesLeft). Not here: a look under way
   * may be deciding on the account's SMS from what it saw before, and would keep them for phones
   * gone; the next look begins after those decisions are written.
   */
  async phonesLeft(accountId: string): Promise<void> {
    if (!this.routes.has(accountId)) return;
    this.phonesGone.add(accountId);
    this.wake();
  }

  /**
   * If the account has no phone online, the SMS its phones rules keep are looked at again now (a
   * rule moves on when no phone is online); else those kept for device groups with no phone online.
   */
  private async lookAgainAfterPhonesLeft(accountId: string): Promise<void> {
    const rules = this.routes.get(accountId);
    if (!rules) return;
    const online = await this.parts.phonesOnline(accountId);
    const hasGroups = rules.some((rule) => groupOf(rule.target) !== undefined);
    if (online.any && !hasGroups) return;
    const now = new Date(this.parts.clock.now());
    await handout.lookAgainAtWaiting(this.parts.db, accountId, now, online.any ? [...online.groups] : undefined);
  }

  routesChanged(accountId: string, rules: RouteRule[]): void {
    if (rules.length === 0) this.routes.delete(accountId);
    else this.routes.set(accountId, rules);
    this.wake();
  }

  async upstreamChanged(row: UpstreamRow | { id: string; deleted: true }): Promise<void> {
    if ('deleted' in row || !row.enabled) {
      this.upstreams.delete(row.id);
      await this.parts.links.drop(row.id);
      return;
    }
    this.upstreams.set(row.id, row);
    await this.parts.links.refresh(row);
  }

  /**
   * Rereads every account's routes and every enabled upstream, and opens or closes links to match.
   * An account whose routes changed elsewhere (another node, a command) has its SMS kept for
   * device groups looked at again once this node knows the new routes: a look by a node that
   * still had the old ones may have kept them for good.
   */
  async refresh(): Promise<void> {
    const [routes, enabled] = await Promise.all([repository.allRoutes(this.parts.db), repository.enabledUpstreams(this.parts.db)]);
    const before = this.routes;
    this.routes = new Map(routes.filter((each) => each.rules.length > 0).map((each) => [each.account_id, each.rules]));
    this.upstreams = new Map(enabled.map((row) => [row.id, row]));
    await this.parts.links.sync(enabled);
    if (!this.refreshed) {
      this.refreshed = true;
      return;
    }
    const changed = [...new Set([...before.keys(), ...this.routes.keys()])].filter(
      (accountId) => JSON.stringify(before.get(accountId) ?? []) !== JSON.stringify(this.routes.get(accountId) ?? []),
    );
    const now = new Date(this.parts.clock.now());
    for (const accountId of changed) await handout.groupsChanged(this.parts.db, accountId, this.routes.has(accountId), now);
    if (changed.length > 0) this.wake();
  }

  private wake(): void {
    // Asked during a pass: that pass looks again before it ends (it may have read its page before).
    this.wokenDuringPass = true;
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      void this.passes.runOnce().catch(() => undefined);
    });
  }

  /** One look at the SMS that need one: new ones of routed accounts, and those whose time is due. */
  async pass(): Promise<void> {
    // Even with no routes and no upstream here: an SMS kept from the phones while routes were
    // cleared comes due (firstHold), and one an upstream since deleted held may be stalled. Both
    // reads use small partial indexes.
    const { db, clock } = this.parts;
    for (let looks = 0; looks < MAX_LOOKS_PER_PASS; looks++) {
      this.wokenDuringPass = false;
      const gone = this.phonesGone;
      this.phonesGone = new Set();
      try {
        for (const accountId of gone) await this.lookAgainAfterPhonesLeft(accountId);
      } catch (error) {
        // The database is away: the next pass looks for them.
        for (const accountId of gone) this.phonesGone.add(accountId);
        throw error;
      }
      const now = clock.now();
      const page = [
        ...(await handout.unrouted(db, [...this.routes.keys()], new Date(now), PAGE)),
        ...(await handout.due(db, new Date(now), PAGE)),
        ...(await handout.stalled(db, new Date(now - SUBMIT_WATCHDOG_MS), PAGE)),
      ];
      const seen = new Set<string>();
      const sms = page.filter((each) => !seen.has(each.id) && seen.add(each.id));
      // Which phones of each account are online, asked once a look: every SMS of the page is decided on the same view.
      const online = new Map<string, Promise<PhonesOnline>>();
      const phoneOnline = (accountId: string) => {
        if (!this.routes.has(accountId)) return Promise.resolve(NONE_ONLINE);
        if (!online.has(accountId)) online.set(accountId, this.parts.phonesOnline(accountId));
        return online.get(accountId)!;
      };
      await inParallel(sms, DECISIONS_AT_ONCE, async (each) => this.decide(each.id, await phoneOnline(each.account_id)));
      // Done unless more came (a full page, or SMS queued meanwhile); the timer's next pass gets the rest otherwise.
      if (sms.length < PAGE && !this.wokenDuringPass) return;
    }
  }

  /**
   * `phoneOnline` is asked before the row is locked: presence reads the account's devices on a
   * connection of its own, which the embedded database (one connection) could not give inside the
   * transaction.
   */
  private async decide(id: string, phoneOnline: PhonesOnline): Promise<void> {
    let submission: Submission | undefined;
    await this.parts.db.transaction(async (trx) => {
      const row = await handout.lockRouted(trx, id);
      if (!row) return;
      const now = new Date(this.parts.clock.now());
      if (row.status === 'pending' && row.upstream_id === null) submission = await this.route(trx, row, now, phoneOnline);
      else if (row.status === 'processing' && row.upstream_id !== null) submission = await this.resume(trx, row, now);
      // A phone acknowledged it, or it ended: the router has nothing left to do for it.
      else await handout.settle(trx, id, row.route_rule ?? -1);
    });
    if (submission) this.submit(submission);
  }

  /** An SMS still waiting for a phone: keep it there (any phone, or a device group's), or hand it to the next rule's upstream. */
  private async route(trx: Executor, row: RoutedRow, now: Date, phoneOnline: PhonesOnline): Promise<Submission | undefined> {
    const rules = this.routes.get(row.account_id) ?? [];
    let index: number | undefined;
    let since: Date;
    if (row.route_rule === null || row.route_rule < 0) {
      index = nextApplicable(rules, row, 0);
      since = laterOf(row.created_at, row.send_at);
    } else {
      // The routes may have changed since: the rule it was under, if it still applies, else the next.
      index = row.route_rule < rules.length && applies(rules[row.route_rule]!, row) ? row.route_rule : nextApplicable(rules, row, row.route_rule);
      since = row.route_since ?? laterOf(row.created_at, row.send_at);
    }
    while (index !== undefined) {
      const rule = rules[index]!;
      if (forPhones(rule)) {
        const verdict = phonesVerdict(rule, since, now, onlineFor(rule, phoneOnline));
        if (verdict.stay) {
          await this.keepForPhones(trx, row, rule, index, since, verdict.checkAt);
          return undefined;
        }
        const next = nextApplicable(rules, row, index + 1);
        // The last rule is the phones' (or a group's): they keep it, however long it waits.
        if (next === undefined) {
          await this.keepForPhones(trx, row, rule, index, since, null);
          return undefined;
        }
        index = next;
        since = now;
        continue;
      }
      const usable = await this.usable(trx, rule.target);
      if (usable && row.opted_out) {
        // The recipient sent STOP while it waited: no route sends it, as no phone would.
        await handout.settle(trx, row.id, index);
        if (row.device_id && row.dispatched_at) await this.parts.tasks.withdrawn(trx, row.device_id, [row.id], OPTED_OUT);
        await this.parts.tasks.recordChanges(trx, [statusChange(row, 'pending', ['failed_send'], now, OPTED_OUT)]);
        return undefined;
      }
      if (usable) {
        const attempt = await handout.takeForUpstream(trx, row.id, usable.upstream.id, index, now);
        if (row.device_id && row.dispatched_at) await this.parts.tasks.withdrawn(trx, row.device_id, [row.id], 'moved_upstream');
        await this.parts.tasks.recordChanges(trx, [statusChange(row, 'pending', ['processing'], now, null)]);
        return { row: { ...row, upstream_id: usable.upstream.id, attempt, status: 'processing' }, ...usable };
      }
      index = nextApplicable(rules, row, index + 1);
      since = now;
    }
    // No rule applies, or none can carry it now: the phones keep it, as without routes (any phone).
    await handout.settle(trx, row.id, -1, null);
    return undefined;
  }

  /**
   * Keeps it for the rule's phones: a device group's, or any. Kept for a group, a phone outside it
   * that had it unacknowledged gives it back, and is told.
   */
  private async keepForPhones(trx: Executor, row: RoutedRow, rule: RouteRule, index: number, since: Date, checkAt: Date | null): Promise<void> {
    const { takenFrom } = await handout.keepForPhones(trx, row.id, index, since, checkAt, groupOf(rule.target) ?? null);
    if (takenFrom) await this.parts.tasks.withdrawn(trx, takenFrom, [row.id], 'moved_to_group');
  }

  /** An SMS an upstream holds whose time came: a retry, or a submission that never answered. */
  private async resume(trx: Executor, row: RoutedRow, now: Date): Promise<Submission | undefined> {
    if (row.opted_out && row.route_since === null) {
      await this.fail(trx, row, now, OPTED_OUT, null, 'the recipient opted out while it waited for a retry');
      return undefined;
    }
    if (this.submitting.has(row.id)) return undefined;
    if (row.route_since !== null) {
      // A submission is under way somewhere. Past the watchdog, no answer was ever applied: the
      // node that submitted it is gone, or the provider never answered. The provider may have it;
      // trying again could send it twice.
      if (now.getTime() - row.route_since.getTime() < SUBMIT_WATCHDOG_MS) return undefined;
      // The attempt is listed with the verdict, as one the provider answered would be.
      await this.parts.tasks.recordUpstreamAttempt(trx, {
        smsId: row.id, attempt: row.attempt, upstreamId: row.upstream_id!, at: now, result: 'failed', errorCode: 'upstream_outcome_unknown', error: 'no answer from the provider was recorded', retried: false,
      });
      await this.fail(trx, row, now, 'upstream_outcome_unknown', null, 'no answer from the provider was recorded (it never answered, or the node submitting it stopped)');
      return undefined;
    }
    const usable = await this.usable(trx, row.upstream_id!);
    if (!usable) {
      await this.moveOn(trx, row, now, 'the upstream can no longer take it');
      return undefined;
    }
    await handout.submitting(trx, row.id, now);
    return { row, ...usable };
  }

  /** The upstream and this node's link to it, when it can take an SMS now (enabled, its link not down, its budget not spent). */
  private async usable(db: Executor, upstreamId: string): Promise<{ upstream: UpstreamRow; link: UpstreamLink } | undefined> {
    const upstream = this.upstreams.get(upstreamId);
    const link = this.parts.links.get(upstreamId);
    if (!upstream || !link || link.status.state === 'down' || link.status.state === 'closed') return undefined;
    if (upstream.monthly_budget !== null) {
      const spent = (await repository.monthSpend(db, [upstream.id], repository.monthOf(new Date(this.parts.clock.now())))).get(upstream.id) ?? 0;
      if (budgetSpent(upstream, spent)) return undefined;
    }
    return { upstream, link };
  }

  private submit({ row, upstream, link }: Submission): void {
    const work = link
      .submit({ smsId: row.id, phone: row.phone, text: row.message ?? '', wantsReceipt: true, ...(row.expires_at ? { validUntil: row.expires_at } : {}) })
      .then((outcome) => {
        const applied = this.parts.db.transaction((trx) => this.answered(trx, row.id, upstream, outcome));
        // A receipt may come before the provider's ids are stored (an SMSC sends it right after its
        // answer): until they are, a receipt naming one of them waits for this.
        if (outcome.accepted) {
          const keys = outcome.providerIds.map((id) => `${upstream.id}:${id}`);
          for (const key of keys) this.recording.set(key, applied.then(() => undefined, () => undefined));
          void applied.finally(() => keys.forEach((key) => this.recording.delete(key))).catch(() => undefined);
        }
        return applied;
      })
      .catch((error: unknown) => this.parts.logger.error({ err: error, smsId: row.id, upstreamId: upstream.id }, 'upstream answer not applied'))
      .finally(() => this.submitting.delete(row.id));
    this.submitting.set(row.id, work);
  }

  private async answered(trx: Executor, smsId: string, upstream: UpstreamRow, outcome: Awaited<ReturnType<UpstreamLink['submit']>>): Promise<void> {
    const row = await handout.lockHeldBy(trx, smsId, upstream.id);
    if (!row || row.status !== 'processing') return;
    const now = new Date(this.parts.clock.now());
    if (outcome.accepted) {
      // Priced now, per SMS: a later change of price leaves what it cost as it was.
      const price = pricePerSegment(upstream, row.phone);
      await repository.recordSubmission(trx, upstream.id, smsId, outcome.providerIds, { segments: outcome.segments, pricePerSegment: price }, now);
      await this.parts.tasks.recordUpstreamAttempt(trx, { smsId, attempt: row.attempt, upstreamId: upstream.id, at: now, result: 'sent', errorCode: null, error: null, retried: false });
      await this.parts.tasks.recordChanges(trx, [statusChange(row, 'processing', ['sent'], now, null)]);
      // Last: every answer through the upstream counts on this one row, whose lock is then held
      // only until the commit, not through the writes above (which made it the queue every
      // accepted submission waited in, one at a time).
      await repository.addUsage(trx, upstream.id, repository.monthOf(now), outcome.segments, price * outcome.segments);
      return;
    }
    if (outcome.retry === 'unknown') {
      // It went out and no answer came: the provider may have it. Neither another try nor the next
      // rule may send it again; its submission stays under way, and the watchdog settles it.
      this.parts.logger.warn({ smsId, upstreamId: upstream.id, code: outcome.code }, `upstream submission without an answer: ${outcome.detail.slice(0, 200)}`);
      return;
    }
    const tries = row.upstream_tries + 1;
    if (outcome.retry === 'later' && tries < MAX_TRIES) {
      const wait = outcome.retryAfterMs ?? Math.min(60_000, 1_000 * 2 ** (tries - 1));
      await handout.retryAt(trx, smsId, tries, new Date(now.getTime() + wait));
      this.wakeAt(wait);
      return;
    }
    const detail = `${upstream.name}: ${outcome.code} ${outcome.detail}`;
    const moved = await this.moveOn(trx, row, now, `refused by upstream ${detail}`);
    await this.parts.tasks.recordUpstreamAttempt(trx, { smsId, attempt: row.attempt, upstreamId: upstream.id, at: now, result: 'failed', errorCode: outcome.code, error: outcome.detail, retried: moved });
  }

  /** On to the next rule that can carry it; answers whether there was one (else it failed). */
  private async moveOn(trx: Executor, row: RoutedRow, now: Date, why: string): Promise<boolean> {
    const rules = this.routes.get(row.account_id) ?? [];
    for (let index = nextApplicable(rules, row, (row.route_rule ?? -1) + 1); index !== undefined; index = nextApplicable(rules, row, index + 1)) {
      const rule = rules[index]!;
      if (forPhones(rule)) {
        await handout.returnToPhones(trx, row.id, index, now, why, groupOf(rule.target) ?? null);
        this.wake();
        return true;
      }
      if (await this.usable(trx, rule.target)) {
        await handout.moveToUpstream(trx, row.id, rule.target, index, now);
        this.wake();
        return true;
      }
    }
    await this.fail(trx, row, now, 'upstream_refused', null, why);
    return false;
  }

  private async fail(trx: Executor, row: RoutedRow, now: Date, reason: string, code: string | null, detail: string): Promise<void> {
    await handout.settle(trx, row.id, row.route_rule ?? -1);
    await this.parts.tasks.recordChanges(trx, [statusChange(row, 'processing', ['failed_send'], now, reason)]);
    this.parts.logger.warn({ smsId: row.id, upstreamId: row.upstream_id, reason, code }, `upstream SMS failed: ${detail.slice(0, 200)}`);
  }

  private wakeAt(ms: number): void {
    setTimeout(() => this.wake(), ms).unref();
  }

  /** A provider's receipt: the SMS it names moves on as a phone's report would move it. */
  async receipt(upstream: UpstreamRow, receipt: UpstreamReceipt): Promise<void> {
    await this.recording.get(`${upstream.id}:${receipt.providerId}`);
    const smsId = await repository.smsOfSubmission(this.parts.db, upstream.id, receipt.providerId);
    if (!smsId) {
      this.parts.logger.info({ upstreamId: upstream.id, providerStatus: receipt.providerStatus }, 'receipt for no SMS this gateway submitted: dropped');
      return;
    }
    await this.parts.db.transaction(async (trx) => {
      const row = await handout.lockForOutcome(trx, smsId);
      if (!row || row.upstream_id !== upstream.id) return;
      // An SMS in parts moves on when its parts' receipts together say so (receipt-parts.ts).
      const outcome = await outcomeAfterReceipt(trx, upstream.id, receipt);
      if (!outcome) return;
      const path = transitionPath(row.status as SmsStatus, outcome);
      if (path.length === 0) return;
      const failed = outcome === 'undelivered' || outcome === 'failed_delivery';
      const reason = failed ? [receipt.providerStatus, receipt.errorCode].filter(Boolean).join(' ') || 'provider' : null;
      await this.parts.tasks.recordChanges(trx, [statusChange(row, row.status as SmsStatus, path, receipt.at, reason)]);
    });
  }

  async incoming(upstream: UpstreamRow, message: UpstreamIncoming): Promise<void> {
    await this.parts.storeIncoming(upstream, message);
  }
}

function statusChange(row: RoutedRow, from: SmsStatus, path: SmsStatus[], at: Date, reason: string | null): SmsStatusChange {
  return {
    sms: {
      id: row.id,
      object_id: row.object_id,
      account_id: row.account_id,
      phone: row.phone,
      message: row.message,
      callback_id: row.callback_id,
      device_id: null,
      device_object_id: null,
      is_encrypted: row.is_encrypted ?? false,
      kind: row.kind ?? 'text',
      attempt: row.attempt,
      way_in: row.way_in,
    },
    from,
    path,
    at,
    reason,
    source: 'system',
    transient: false,
  };
}

/** Runs `work` for every item, at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A phones rule's wait starts when the SMS may first be sent: made, or scheduled for later. */
function laterOf(createdAt: Date, sendAt: Date | null): Date {
  return sendAt && sendAt.getTime() > createdAt.getTime() ? sendAt : createdAt;
}
