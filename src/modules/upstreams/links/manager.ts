// The upstream links this node holds open: one per enabled upstream of any account, opened when
// the upstream is made or enabled (so that its bind state shows at once), opened again when its
// settings change, closed when it is disabled or deleted. Every node holds its own links: each
// node submits the SMS it routes, and a provider sees one bind per node.
import type { Logger } from '../../../common/logger.ts';
import type { SecretBox } from '../../webhooks/outbound/secret-box.ts';
import type { UpstreamRow } from '../types.ts';
import type { LinkEvents, LinkStatus, UpstreamIncoming, UpstreamLink, UpstreamReceipt } from './link.ts';

/** Makes the link of an upstream's kind (links/factory.ts). */
export type OpenLink = (upstream: UpstreamRow, secret: string, events: LinkEvents) => UpstreamLink;

/** What the links hear, named by the upstream they came through. */
export interface LinkListener {
  receipt(upstream: UpstreamRow, receipt: UpstreamReceipt): Promise<void>;
  incoming(upstream: UpstreamRow, message: UpstreamIncoming): Promise<void>;
}

interface Held {
  link: UpstreamLink;
  upstream: UpstreamRow;
}

const NOT_OPEN: Omit<LinkStatus, 'since'> = { state: 'closed', detail: 'not connected on this node' };

export class UpstreamLinks {
  private readonly held = new Map<string, Held>();
  private closed = false;

  constructor(
    private readonly openLink: OpenLink,
    private readonly secrets: SecretBox,
    private readonly listener: LinkListener,
    private readonly logger: Logger,
  ) {}

  /** The link of an upstream, when this node holds it open. */
  get(upstreamId: string): UpstreamLink | undefined {
    return this.held.get(upstreamId)?.link;
  }

  status(upstreamId: string): LinkStatus {
    return this.held.get(upstreamId)?.link.status ?? { ...NOT_OPEN, since: new Date() };
  }

  /**
   * Makes the links held match these upstreams (every enabled one of every account): opens the new
   * ones and those whose row changed, closes those no longer listed.
   */
  async sync(enabled: readonly UpstreamRow[]): Promise<void> {
    if (this.closed) return;
    const wanted = new Map(enabled.map((row) => [row.id, row]));
    for (const [id, held] of this.held) {
      const row = wanted.get(id);
      if (!row || row.updated_at.getTime() !== held.upstream.updated_at.getTime()) await this.drop(id);
    }
    for (const row of enabled) if (!this.held.has(row.id)) this.open(row);
  }

  /** Opens (or opens again) one upstream's link, or closes it when it is disabled. */
  async refresh(row: UpstreamRow): Promise<void> {
    await this.drop(row.id);
    if (row.enabled && !this.closed) this.open(row);
  }

  async drop(upstreamId: string): Promise<void> {
    const held = this.held.get(upstreamId);
    if (!held) return;
    this.held.delete(upstreamId);
    await held.link.close();
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.held.keys()];
    await Promise.all(all.map((id) => this.drop(id)));
  }

  private open(row: UpstreamRow): void {
    let secret: string;
    try {
      secret = this.secrets.open(row.secret_encrypted);
    } catch (error) {
      this.logger.error({ err: error, upstreamId: row.id }, 'upstream secret cannot be opened with this key: link not opened');
      return;
    }
    const events: LinkEvents = {
      receipt: (receipt) => this.listener.receipt(row, receipt),
      incoming: (message) => this.listener.incoming(row, message),
      stateChanged: (status) => this.logger.info({ upstreamId: row.id, kind: row.kind, state: status.state, detail: status.detail }, 'upstream link state'),
    };
    try {
      this.held.set(row.id, { link: this.openLink(row, secret, events), upstream: row });
    } catch (error) {
      // Settings stored before a check of today's: the upstream stays without a link, and says so in the log.
      this.logger.error({ err: error, upstreamId: row.id }, 'upstream link not opened: its settings are refused');
    }
  }
}
