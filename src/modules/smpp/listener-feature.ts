// The SMPP server, on when SMPP_PORT or SMPP_TLS_PORT is set (off, nothing of it runs): ESMEs bind
// with SMPP credentials, submit SMS and get the receipts and incoming SMS owed to them, which
// status changes and incoming SMS wake it to send.
import { readFileSync } from 'node:fs';
import { SMPP_BIND_TIMEOUT_S } from '../../config.ts';
import { defineFeature } from '../../composition/feature.ts';
import { Started } from '../../composition/started.ts';
import { describeEnvironmentError } from '../../common/errors.ts';
import { gaugeReadFailed } from '../../common/metrics.ts';
import { defaultConnectionBudget, listenerShares } from '../../common/file-descriptors.ts';
import { SmppListener } from '../../api/smpp/listener.ts';
import { SmppSubmissions } from '../../api/smpp/submission.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The SMPP server; none unless SMPP_PORT or SMPP_TLS_PORT is set. */
    smppServer?: Started<SmppListener>;
  }
}

/** An ESME holds a few sessions (Kannel one to ten); past this an address is flooding. */
export const SMPP_MAX_CONNECTIONS_PER_ADDRESS = 64;

export const smppListenerFeature = defineFeature({
  name: 'smpp-listener',
  provides: ['smppServer'],
  enabled: ({ smpp }) => smpp.port !== undefined || smpp.tls !== undefined,
  make: ({ config, db, logger: parent }, need) => {
    const { smpp } = config;
    const logger = parent.child({ component: 'smpp' });
    const credentials = need('smpp');
    const metrics = need('metrics');
    metrics.sampledGauge(
      'smpp_receipts_pending',
      'deliver_sm stored for ESMEs (receipts, incoming SMS) not yet answered',
      [],
      async () => [{ labels: {}, value: await credentials.countPending() }],
      gaugeReadFailed(logger)('smpp_receipts_pending'),
    );
    const submissions = new SmppSubmissions({ db, messages: need('messages'), idempotency: need('idempotency'), tasks: need('tasks'), smpp: credentials, presence: need('presence') });
    const open = () =>
      SmppListener.start(
        {
          credentials: {
            authenticate: (systemId, password) => credentials.authenticate(systemId, password),
            stillWorks: (credentialId) => credentials.stillWorks(credentialId),
          },
          submissions,
          pending: {
            claim: (credentialId, limit, leaseMs) => credentials.claimPending(credentialId, limit, leaseMs),
            acknowledged: (id) => credentials.acknowledged(id),
            release: (ids) => credentials.release(ids),
            purge: (retentionMs) => credentials.purge(retentionMs),
          },
          authThrottle: need('authThrottle'),
          metrics,
          clock: need('clock'),
          logger,
        },
        {
          host: config.host,
          port: smpp.port,
          tls: smpp.tls && { port: smpp.tls.port, cert: readFileSync(smpp.tls.certFile), key: readFileSync(smpp.tls.keyFile) },
          enquireLinkMs: smpp.enquireLinkMs,
          bindTimeoutMs: smpp.bindTimeoutMs ?? SMPP_BIND_TIMEOUT_S * 1000,
          retentionMs: smpp.receiptRetentionMs,
          responseTimeoutMs: 30_000,
          maxConnectionsPerAddress: SMPP_MAX_CONNECTIONS_PER_ADDRESS,
          // Its share of the process's one connection budget (src/common/file-descriptors.ts).
          maxConnections: smpp.maxConnections ?? listenerShares(config.connectionBudget ?? defaultConnectionBudget()).smpp,
          defaultPhoneRegion: config.defaultPhoneRegion,
        },
      ).catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['SMPP_PORT', smpp.port ?? smpp.tls!.port, config.host] });
      });
    return { smppServer: new Started(open) };
  },
  listens: [
    {
      register: (events, need) => {
        const server = need('smppServer')!;
        // What it owes is already stored, in the transactions of these changes (the smpp feature).
        events.on('sms.status_changed', () => server.current?.wakeAll());
        events.on('incoming.stored', () => server.current?.wakeAll());
        events.on('smpp.credential_revoked', ({ credentialId }) => server.current?.revoked(credentialId));
        // Revoked on another node: that node has told this one over Redis.
        events.on('cache.changed_elsewhere', ({ kind, id }) => void (kind === 'smpp_credential' && server.current?.revoked(id)));
      },
    },
  ],
  runs: ({ smppServer }) => [
    {
      name: 'SMPP listener',
      start: () => smppServer!.start(),
      stop: () => smppServer!.stop(),
      stopsIn: 'ways-in',
      listening: () => ({ smppPort: smppServer!.current?.port ?? 'off', smppTlsPort: smppServer!.current?.tlsPort ?? 'off' }),
    },
  ],
});
