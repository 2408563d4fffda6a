// An account's upstreams (providers that carry its SMS when its phones cannot) and its routes
// (the ordered rules that say when): made, read, changed and removed, their secrets sealed, the
// links of this node kept in step with them.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../common/clock.ts';
import { AppError, invalidField } from '../../common/errors.ts';
import { isPostgresError, type Database } from '../../storage/database.ts';
import type { SecretBox } from '../webhooks/outbound/secret-box.ts';
import type { UpstreamLinks } from './links/manager.ts';
import { presentRoutes, presentUpstream } from './presenter.ts';
import * as repository from './repository.ts';
import type { CreateUpstreamBody, RoutesView, UpdateUpstreamBody, UpstreamView } from './schema.ts';
import { requiredSecret, secretField, upstreamSettings } from './settings.ts';
import { linkSettingsProblems } from './links/factory.ts';
import { GROUP_PREFIX, groupOf, PHONES } from './routing/rules.ts';
import { groupsChanged } from './routing/handout.ts';
import { DEVICE_GROUP_RULE, isDeviceGroupName } from '../devices/group-name.ts';
import type { RouteRule, UpstreamRow } from './types.ts';

type View = Static<typeof UpstreamView>;

/** Told when an account's routes or upstreams change here, so that this node routes by them at once. */
export interface RoutingChanges {
  routesChanged(accountId: string, rules: RouteRule[]): void;
  upstreamChanged(row: UpstreamRow | { id: string; deleted: true }): Promise<void>;
}

export class UpstreamService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly links: UpstreamLinks,
    private readonly clock: Clock,
    private readonly changes: RoutingChanges,
  ) {}

  private month(): string {
    return repository.monthOf(new Date(this.clock.now()));
  }

  async create(accountId: string, body: Static<typeof CreateUpstreamBody>): Promise<View> {
    const posted = body as Record<string, unknown>;
    const settings = upstreamSettings(body.kind, posted);
    const secret = requiredSecret(body.kind, posted);
    refuseProblems(linkSettingsProblems(body.kind, settings, secret));
    const row = await repository
      .insertUpstream(this.db, {
        id: randomUUID(),
        account_id: accountId,
        name: body.name,
        kind: body.kind,
        settings,
        secret_encrypted: this.secrets.seal(secret),
        enabled: body.enabled ?? true,
        price_per_segment: body.price_per_segment ?? null,
        prefix_prices: body.prefix_prices ?? [],
        monthly_budget: body.monthly_budget ?? null,
        at: new Date(this.clock.now()),
      })
      .catch(nameTaken);
    await this.changes.upstreamChanged(row);
    return this.get(accountId, row.id);
  }

  async list(accountId: string): Promise<View[]> {
    const month = this.month();
    const rows = await repository.listUpstreams(this.db, accountId, month);
    return rows.map((row) => presentUpstream(row, this.links.status(row.id), month));
  }

  async get(accountId: string, id: string): Promise<View> {
    const month = this.month();
    const row = await repository.findUpstream(this.db, accountId, id.toLowerCase(), month);
    if (!row) throw new AppError('upstream_not_found');
    return presentUpstream(row, this.links.status(row.id), month);
  }

  async update(accountId: string, id: string, body: Static<typeof UpdateUpstreamBody>): Promise<View> {
    const current = await repository.findUpstream(this.db, accountId, id.toLowerCase(), this.month());
    if (!current) throw new AppError('upstream_not_found');
    const posted = body as Record<string, unknown>;
    const secret = posted[secretField(current.kind)];
    const settings = upstreamSettings(current.kind, posted, current.settings);
    refuseProblems(linkSettingsProblems(current.kind, settings, typeof secret === 'string' ? secret : this.secrets.open(current.secret_encrypted)));
    const changed = await repository
      .updateUpstream(
        this.db,
        accountId,
        current.id,
        {
          settings,
          ...(typeof secret === 'string' ? { secret_encrypted: this.secrets.seal(secret) } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
          ...(body.price_per_segment !== undefined ? { price_per_segment: body.price_per_segment } : {}),
          ...(body.prefix_prices !== undefined ? { prefix_prices: body.prefix_prices } : {}),
          ...(body.monthly_budget !== undefined ? { monthly_budget: body.monthly_budget } : {}),
        },
        new Date(this.clock.now()),
      )
      .catch(nameTaken);
    if (!changed) throw new AppError('upstream_not_found');
    const row = await repository.findAnyUpstream(this.db, current.id);
    if (row) await this.changes.upstreamChanged(row);
    return this.get(accountId, current.id);
  }

  /** Removes an upstream the routes do not name (409 otherwise): its link closes, its figures go. */
  async delete(accountId: string, id: string): Promise<void> {
    const upstreamId = id.toLowerCase();
    const routes = await repository.findRoutes(this.db, accountId);
    if (routes?.rules.some((rule) => rule.target.toLowerCase() === upstreamId)) throw new AppError('upstream_in_routes');
    if (!(await repository.deleteUpstream(this.db, accountId, upstreamId))) throw new AppError('upstream_not_found');
    await this.changes.upstreamChanged({ id: upstreamId, deleted: true });
  }

  async routes(accountId: string): Promise<Static<typeof RoutesView>> {
    return presentRoutes(await repository.findRoutes(this.db, accountId));
  }

  /**
   * Replaces the account's routes: every target "phones", "group:<name>" (a device group, which
   * need not have a device yet) or one of its upstreams, phone-only fields on phones and group
   * rules only (400 naming `routes.<i>.<field>` otherwise). An empty list sends every SMS to the
   * phones again.
   */
  async setRoutes(accountId: string, rules: RouteRule[]): Promise<Static<typeof RoutesView>> {
    const upstreams = new Set((await repository.listUpstreams(this.db, accountId, this.month())).map((row) => row.id));
    const normalised = rules.map((rule, index) => {
      const target = rule.target.toLowerCase();
      if (target === PHONES) return { ...rule, target };
      const group = groupOf(rule.target);
      if (group !== undefined) {
        if (!isDeviceGroupName(group)) throw invalidField(`routes.${index}.target`, `routes.${index}.target is "${rule.target}", which names no valid device group: after "${GROUP_PREFIX}", ${DEVICE_GROUP_RULE}`);
        return rule;
      }
      if (!upstreams.has(target)) throw invalidField(`routes.${index}.target`, `routes.${index}.target is "${rule.target}", which is neither "phones", "group:<name>" nor an upstream of the account`);
      for (const field of ['after_seconds', 'skip_when_offline'] as const) {
        if (rule[field] !== undefined) throw invalidField(`routes.${index}.${field}`, `routes.${index}.${field} is for phones and group rules only`);
      }
      return { ...rule, target };
    });
    const at = new Date(this.clock.now());
    if (normalised.length === 0) await repository.deleteRoutes(this.db, accountId);
    else await repository.saveRoutes(this.db, accountId, normalised, at);
    this.changes.routesChanged(accountId, normalised);
    // SMS kept for a device group may be kept for good (the last rule was the group's): the new
    // routes decide on them again (this node's router knows them now), and without routes any
    // phone may take them at once. Here, with the change, so that it holds wherever the routes
    // were changed from, a command included.
    await groupsChanged(this.db, accountId, normalised.length > 0, at);
    return this.routes(accountId);
  }
}

/** 400 with every problem the link would find in the settings, each naming its field. */
function refuseProblems(problems: { field: string; message: string }[]): void {
  if (problems.length === 0) return;
  throw new AppError('validation_failed', `the upstream's settings cannot be used: ${problems.map((problem) => problem.message).join('; ')}`, problems);
}

function nameTaken(error: unknown): never {
  if (isPostgresError(error, '23505')) throw new AppError('upstream_name_taken');
  throw error;
}
