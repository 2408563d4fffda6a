// The SMPP listener: accepts ESME connections (plain on SMPP_PORT, TLS on SMPP_TLS_PORT), keeps
// their sessions by credential, and sends each credential's stored deliver_sm (receipts,
// incoming SMS) to its bound receivers within their window. What is stored is re-driven from the
// database (architecture decision 1): when composition wakes it (a status change, an incoming SMS),
// when a receiver binds, and on a periodic tick that also retries what went unanswered and
// picks up what other nodes wrote.
import smpp, { type Server } from 'smpp';
import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import type { SmppCredential } from '../../modules/smpp/types.ts';
import { SmppSession, type SessionHost } from './session.ts';
import { TokenBucket } from './throughput.ts';
import { PartHolds } from './part-holds.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import type { SmppListenerOptions, SmppPorts } from './ports.ts';
import { WaitingRoom, type WaitingPlace } from '../../common/waiting-room.ts';
import { waitingPlaces } from '../../common/file-descriptors.ts';
import { listen } from '../../common/listen.ts';

/** How often stored deliver_sm are looked for without being woken. */
const TICK_MS = 2_000;
/** How often what waited past the retention time is removed. */
const PURGE_EVERY_MS = 60_000;

export class SmppListener implements SessionHost {
  readonly partHolds = new PartHolds();
  private readonly sessions = new Map<string, Set<SmppSession>>();
  private readonly unbound = new Set<SmppSession>();
  private readonly connectionsByAddress = new Map<string, number>();
  private connections = 0;
  /** Connections not bound yet (waiting-room.ts): a flood of them pushes out only its own. */
  private readonly waitingRoom: WaitingRoom;
  private readonly places = new Map<SmppSession, WaitingPlace>();
  private readonly buckets = new Map<string, { perSecond: number; bucket: TokenBucket }>();
  private readonly pumping = new Set<string>();
  private readonly again = new Set<string>();
  private readonly pumps = new Set<Promise<void>>();
  private tick: NodeJS.Timeout | undefined;
  private lastPurge = 0;
  private stopped = false;
  /** The certificate and key SMPP over TLS serves now. */
  private served: { cert: Buffer; key: Buffer } | undefined;
  /** While the database is unreachable every tick fails: one line per outage (architecture decision 8). */
  private readonly outage: OutageNotice;

  private constructor(
    private readonly ports: SmppPorts,
    private readonly options: SmppListenerOptions,
    private readonly plain: Server | undefined,
    private readonly secure: Server | undefined,
  ) {
    this.served = options.tls && { cert: options.tls.cert, key: options.tls.key };
    this.outage = new OutageNotice(ports.logger, 'SMPP receipts and incoming SMS wait in the database; submissions are answered ESME_RSYSERR');
    this.waitingRoom = new WaitingRoom(waitingPlaces(options.maxConnections));
  }

  static async start(ports: SmppPorts, options: SmppListenerOptions): Promise<SmppListener> {
    let listener: SmppListener | undefined;
    const accept = (session: Parameters<Parameters<typeof smpp.createServer>[1]>[0]) => listener!.accept(session);
    const plain = options.port === undefined ? undefined : smpp.createServer({}, accept);
    const secure = options.tls ? smpp.createServer({ cert: options.tls.cert, key: options.tls.key }, accept) : undefined;
    listener = new SmppListener(ports, options, plain, secure);
    try {
      if (plain) await listen(plain, { port: options.port!, host: options.host }, 'SMPP_PORT');
      if (secure) await listen(secure, { port: options.tls!.port, host: options.host }, 'SMPP_TLS_PORT');
    } catch (error) {
      plain?.close();
      secure?.close();
      throw error;
    }
    listener.tick = setInterval(() => listener.onTick(), TICK_MS);
    listener.tick.unref();
    ports.metrics.gauge('smpp_sessions', 'SMPP sessions bound now', () => listener.boundCount());
    return listener;
  }

  get port(): number | undefined {
    return (this.plain?.address() as AddressInfo | null)?.port;
  }

  get tlsPort(): number | undefined {
    return (this.secure?.address() as AddressInfo | null)?.port;
  }

  /**
   * Serves a new certificate to new TLS connections (SIGHUP): 'applied', or 'unchanged' when the
   * files hold the pair already served (a SIGHUP meant for the HTTPS certificate, say), or 'off'
   * without SMPP over TLS.
   */
  serveCertificate(pair: { cert: Buffer; key: Buffer }): 'applied' | 'unchanged' | 'off' {
    if (!this.secure) return 'off';
    if (this.served && this.served.cert.equals(pair.cert) && this.served.key.equals(pair.key)) return 'unchanged';
    (this.secure as unknown as TlsServer).setSecureContext({ cert: pair.cert, key: pair.key });
    this.served = { cert: pair.cert, key: pair.key };
    return 'applied';
  }

  bound(session: SmppSession): void {
    this.unbound.delete(session);
    this.places.get(session)?.leave();
    this.places.delete(session);
    const credentialId = session.credential!.id;
    const set = this.sessions.get(credentialId) ?? new Set();
    set.add(session);
    this.sessions.set(credentialId, set);
    if (session.receives) this.wake(credentialId);
  }

  ended(session: SmppSession): void {
    this.unbound.delete(session);
    const credentialId = session.credential?.id;
    if (!credentialId) return;
    const set = this.sessions.get(credentialId);
    set?.delete(session);
    if (set?.size === 0) this.sessions.delete(credentialId);
  }

  bucketOf(credential: SmppCredential): TokenBucket {
    const held = this.buckets.get(credential.id);
    if (held && held.perSecond === credential.throughput_per_second) return held.bucket;
    const bucket = new TokenBucket(credential.throughput_per_second, this.ports.clock);
    this.buckets.set(credential.id, { perSecond: credential.throughput_per_second, bucket });
    return bucket;
  }

  /** Sends what is stored for a credential's receivers, now (coalesced with a pump under way). */
  wake(credentialId: string): void {
    if (this.stopped || !this.sessions.has(credentialId)) return;
    if (this.pumping.has(credentialId)) {
      this.again.add(credentialId);
      return;
    }
    this.pumping.add(credentialId);
    const startedAt = Date.now();
    const pump = this.pump(credentialId)
      .then(() => this.outage.succeeded(startedAt))
      .catch((error: unknown) => {
        if (!this.databaseFailed(error)) this.ports.logger.warn({ err: error }, 'SMPP deliver_sm not sent now; retried on the next tick');
      })
      .finally(() => {
        this.pumping.delete(credentialId);
        this.pumps.delete(pump);
        if (this.again.delete(credentialId)) this.wake(credentialId);
      });
    this.pumps.add(pump);
  }

  /** Something may be owed to any bound receiver (a status change, an incoming SMS). */
  wakeAll(): void {
    for (const credentialId of this.sessions.keys()) this.wake(credentialId);
  }

  /** Whether a failure is the database being unreachable (logged once per outage). */
  databaseFailed(error: unknown): boolean {
    return this.outage.failed(error);
  }

  /** A credential was revoked: its sessions are unbound now. */
  revoked(credentialId: string): void {
    for (const session of this.sessions.get(credentialId) ?? []) session.unbind('credential revoked');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tick) clearInterval(this.tick);
    const closing = [this.plain, this.secure].filter((server): server is Server => server !== undefined).map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const set of this.sessions.values()) for (const session of set) session.close('gateway stopping');
    for (const session of this.unbound) session.close('gateway stopping');
    await Promise.all([...this.pumps]);
    await Promise.all(closing);
  }

  private accept(session: Parameters<Parameters<typeof smpp.createServer>[1]>[0]): void {
    // A connection that errs before its session listens would otherwise be an unhandled 'error'.
    session.socket.on('error', () => undefined);
    const address = session.socket.remoteAddress ?? '';
    if (this.stopped) return void session.destroy();
    const open = this.connectionsByAddress.get(address) ?? 0;
    if (open >= this.options.maxConnectionsPerAddress) return this.refuse(session, 'per_address');
    if (this.connections >= this.options.maxConnections) return this.refuse(session, 'max_connections');
    let smppSession: SmppSession | undefined;
    const arrival = this.waitingRoom.enter(address, () => smppSession?.close('pushed out of the waiting room while unbound'));
    if ('refused' in arrival) return this.refuse(session, 'waiting_room_full');
    if (arrival.displaced) this.countRefusal('pushed_out_unbound');
    this.connections++;
    this.connectionsByAddress.set(address, open + 1);
    session.socket.once('close', () => {
      this.connections--;
      arrival.place.leave();
      const left = (this.connectionsByAddress.get(address) ?? 1) - 1;
      if (left > 0) this.connectionsByAddress.set(address, left);
      else this.connectionsByAddress.delete(address);
    });
    smppSession = new SmppSession(session, this.ports, this.options, this);
    this.places.set(smppSession, arrival.place);
    session.socket.once('close', () => this.places.delete(smppSession));
    this.unbound.add(smppSession);
  }

  /** Closes a connection at once, counted by why. */
  private refuse(session: Parameters<Parameters<typeof smpp.createServer>[1]>[0], reason: 'per_address' | 'max_connections' | 'waiting_room_full'): void {
    this.countRefusal(reason);
    session.destroy();
  }

  private countRefusal(reason: string): void {
    this.ports.metrics.count('smpp_connections_refused_total', 'SMPP connections closed at once (or, unbound, pushed out by a newcomer), by reason', { reason });
  }

  private async pump(credentialId: string): Promise<void> {
    for (const session of this.sessions.get(credentialId) ?? []) {
      const room = session.room;
      if (room === 0) continue;
      const rows = await this.ports.pending.claim(credentialId, room, this.options.responseTimeoutMs);
      for (const row of rows) session.deliver(row);
      if (rows.length < room) break;
    }
  }

  private onTick(): void {
    this.wakeAll();
    const now = this.ports.clock.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.ports.pending.purge(this.options.retentionMs).catch(() => undefined);
  }

  private boundCount(): number {
    let count = 0;
    for (const set of this.sessions.values()) count += set.size;
    return count;
  }
}
