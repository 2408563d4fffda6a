// The one place that reads the environment. Every variable is parsed and checked here, so a
// bad value stops the gateway at start with a message that names the variable, instead of
// surfacing later as an odd failure. Each variable is documented in the README's table.
import { hostname } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { TrustedProxies } from './common/client-address.ts';
import { readCertificatePair } from './tls/certificate-pair.ts';
import type { DatabaseConnections } from './storage/database.ts';
import { readRedisSentinel, type RedisSentinelSettings } from './cluster/redis-options.ts';
import { parseDatabaseUrl } from './storage/database-hosts.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

export interface InboundRulesConfig {
  /** smtp://user:password@host:port (smtps:// for TLS); unset: rules that forward by email count a failure. */
  smtpUrl: string | undefined;
  /** The From address of forwarded emails. */
  mailFrom: string;
  /** At most one auto-reply to a sender per this many milliseconds (two auto-responders cannot loop). */
  autoReplyWindowMs: number;
  /** How long one regular-expression match may run before it is abandoned. */
  regexTimeoutMs: number;
}

export interface Config {
  /** HTTP port of the API (0 picks a free one, as tests do). */
  port: number;
  /** Address the HTTP server and the MQTT broker bind to. */
  host: string;
  /** MQTT over TCP port for devices. */
  mqttPort: number;
  /** Whether plain MQTT listens on mqttPort: MQTT_PORT=off turns it off, allowed only with TLS (phones then use MQTTS_PORT or WSS). */
  plainMqtt: boolean;
  /** TLS_CERT and TLS_KEY: HTTPS (and WSS) on the HTTP port, MQTT over TLS on MQTTS_PORT; none: plain HTTP and MQTT only. */
  tls: TlsConfig | undefined;
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections: the statement timeout, TCP keepalive, and when a silent query's connection is looked at. */
  database: DatabaseConnections;
  /** The gateway's own files: the embedded database, the webhook key file, first-start.txt. */
  dataDir: string;
  /** Redis that several nodes share; none (and no redisSentinel): a single node, no Redis connection at all. */
  redisUrl: string | undefined;
  /** REDIS_SENTINELS: the shared Redis is the master of a Sentinel group instead (never with redisUrl). */
  redisSentinel: RedisSentinelSettings | undefined;
  /** This node's name in logs (`node`) and metrics (label `node`): NODE_ID, or host name and pid. */
  nodeId: string;
  /** Start of every Redis channel name, so that several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** Several nodes: how long a node's hold on its phones outlives its last renewal (a killed node's phones go offline then). */
  presenceLeaseMs: number;
  /** `serve` answers /readyz 503 this long after SIGTERM before it stops (a balancer's health checks notice). */
  shutdownDrainMs: number;
  /** Load balancers whose forwarded client address is believed (X-Forwarded-For, PROXY protocol). */
  trustedProxies: TrustedProxies;
  logLevel: LogLevel;
  /** LOG_FORMAT: JSON lines or lines for people; none: for people on a terminal, JSON otherwise. */
  logFormat: LogFormat | undefined;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** ISO 3166 region used to read phone numbers written without a leading +; none: + is required. */
  defaultPhoneRegion: string | undefined;
  /** A device with no activity for this long is shown offline (devices report about every 5 minutes). */
  deviceOfflineAfterMs: number;
  /** A task the device has not acknowledged within this time is published to it again. */
  taskRetryAfterMs: number;
  /** Unacknowledged tasks of a device offline this long go back to the pool for other devices. */
  failoverAfterMs: number;
  /** Circuit breaker: a device is paused after this many failed sends in a row... */
  pauseAfterFailures: number;
  /** ...for this long. */
  pauseForMs: number;
  /** USSD_TIMEOUT: how long a USSD session waits for each answer (the phone's, a reply) before it fails with "timeout". */
  ussdTimeoutMs: number;
  /** A failed send is retried this long after its first attempt, the delay doubling after each further one. */
  sendRetryBackoffMs: number;
  /** SIM breaker: a SIM is paused after this many failed sends in a row with the same error... */
  simPauseAfterFailures: number;
  /** ...for this long. */
  simPauseForMs: number;
  /** Admission control: past these bounds API requests get 503 and devices CONNACK 3. */
  admission: AdmissionConfig;
  /** What the MQTT broker lets a connection do before and after it authenticates. */
  mqtt: MqttLimitsConfig;
  /** Failed authentications per client address and per credential, in each channel (keys, logins, phones). */
  authThrottle: AuthThrottleConfig;
  /** What an HTTP client may hold: header and body deadlines, connections per address and in all. */
  httpLimits: HttpLimitsConfig;
  /**
   * CONNECTION_BUDGET: client connections the process may hold, shared out among the listeners
   * (src/common/file-descriptors.ts); undefined: the open-file limit less a reserve.
   */
  connectionBudget: number | undefined;
  webhooks: WebhookConfig;
  /** The address people reach the gateway at (behind a proxy, the proxy's); https:// makes the session cookie Secure. */
  publicUrl: string | undefined;
  /** The broker as phones reach it (a proxy, a public name, a TLS terminator); pairing URLs name it. */
  mqttPublicUrl: MqttAddress | undefined;
  sessions: SessionConfig;
  /** The email of the administrator created at first start. */
  adminEmail: string;
  /** Call recordings the phones upload. */
  recordings: RecordingsConfig;
  /** MMS media: size limits, where the bytes go, how long they are kept. */
  mms: MmsConfig;
  /**
   * The legacy GET /sms counts a search's matches for total_records up to this many; past it
   * total_records is a lower bound (header X-Total-Records-Exact: false). Counting every match of
   * a broad search costs in proportion to the matches; counting up to the cap costs at most what
   * the cap does. 'off': every match is counted. The list without a search is always exact.
   */
  legacyCountCap: number | 'off';
  /** Inbound rules: the SMTP server that forwards by email, the auto-reply window, the regex time limit. */
  inboundRules: InboundRulesConfig;
  /** The SMPP server for ESMEs (Kannel, CRMs, aggregators' clients); off unless SMPP_PORT or SMPP_TLS_PORT is set. */
  smpp: SmppConfig;
  /** Email to SMS: the SMTP listener; off unless SMTP_PORT is set (with SMTP_DOMAIN). */
  smtp: SmtpConfig;
  /** Who may read /metrics, and where: nobody unless METRICS_TOKEN or METRICS_PORT is set. */
  metrics: MetricsConfig;
}

/**
 * /metrics tells whoever reads it the traffic of every tenant, so it is served only when asked
 * for: with METRICS_TOKEN on the API port to requests that carry it, with METRICS_PORT on a
 * listener of its own (and the token there too when both are set).
 */
export interface MetricsConfig {
  /** METRICS_TOKEN: the bearer token a scrape must send; none: no token asked (then only METRICS_PORT serves /metrics). */
  token: string | undefined;
  /** METRICS_PORT: a listener serving /metrics only (0 picks a free one, as tests do); none: off. */
  port: number | undefined;
  /** METRICS_HOST: the address that listener binds to; HOST unless set. */
  host: string;
}

export interface SmtpConfig {
  /** SMTP_PORT: the SMTP listener (0 picks a free one, as tests do); none: off. */
  port: number | undefined;
  /** SMTP_DOMAIN: mail to <number>@<this domain> becomes SMS; replies come from <number>@<this domain>. */
  domain: string | undefined;
  /** SMTP_TLS_CERT and SMTP_TLS_KEY: STARTTLS with this PEM pair; none: plain SMTP only. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** SMTP_TEXT: what of an email becomes the SMS text (subject, body or both) for an account that has not chosen (PATCH /account/mail); body by default. */
  text: 'subject' | 'body' | 'both';
  /** SMTP_MAX_CLIENTS: open SMTP connections in all; a connection past it is answered 421 and closed. */
  maxClients: number;
  /** SMTP_IDLE_TIMEOUT: a connection that sends nothing for this long while the gateway waits for it is answered 421 and closed. */
  idleTimeoutMs: number;
  /** SMTP_DATA_TIMEOUT: a mail's DATA must be in whole (final dot) within this long after 354, however it trickles; else 421 and closed. */
  dataTimeoutMs: number;
}

/** An ESME binds in its first round trip; one that has not within seconds is holding a descriptor. */
export const SMPP_BIND_TIMEOUT_S = 5;

export interface SmppConfig {
  /** SMPP_PORT: plain SMPP (0 picks a free one, as tests do); none: no plain listener. */
  port: number | undefined;
  /** SMPP_TLS_PORT with SMPP_TLS_CERT and SMPP_TLS_KEY: SMPP over TLS; none: off. */
  tls: { port: number; certFile: string; keyFile: string } | undefined;
  /** SMPP_ENQUIRE_LINK_INTERVAL: a session silent this long is sent enquire_link, and closed when silent twice as long. */
  enquireLinkMs: number;
  /** SMPP_RECEIPT_RETENTION: receipts and incoming SMS wait this long for a session of their system_id. */
  receiptRetentionMs: number;
  /** SMPP_BIND_TIMEOUT: a connection that has not bound within this long is closed; absent, SMPP_BIND_TIMEOUT_S. */
  bindTimeoutMs?: number;
  /** SMPP_MAX_CONNECTIONS: open SMPP connections in all; absent: SMPP's share of the connection budget. */
  maxConnections?: number | undefined;
}

export interface TlsConfig {
  /** TLS_CERT: PEM certificate, the chain after it (certbot's fullchain.pem). */
  certFile: string;
  /** TLS_KEY: PEM private key of that certificate. */
  keyFile: string;
  /** MQTTS_PORT: MQTT over TLS (0 picks a free one, as tests do). */
  mqttsPort: number;
}

/** MQTT_PUBLIC_URL, parsed: mqtt://host:port (plain TCP) or mqtts://host:port (TLS). */
export interface MqttAddress {
  /** A name or an address; an IPv6 address without its brackets. */
  host: string;
  port: number;
  tls: boolean;
}

export interface RecordingsConfig {
  /** Largest recording accepted, in bytes; a larger upload is refused (413) as soon as it is known. */
  maxBytes: number;
  /** The S3-compatible bucket recordings go to; none: files in `directory`. */
  s3: S3Location | undefined;
  /** DATA_DIR/recordings: where the files go without a bucket. */
  directory: string;
  /** Recordings older than this many days are removed; none: kept until their call is deleted. */
  retentionDays: number | undefined;
}

export interface MmsConfig {
  /** MMS_MAX_PART_BYTES: largest media upload (one part of an MMS), refused with 413 as soon as it is known. */
  maxPartBytes: number;
  /** MMS_MAX_MESSAGE_BYTES: the parts of one outgoing MMS together, and the largest part a phone may upload of one it received. */
  maxMessageBytes: number;
  /** DATA_DIR/media: where media files go without a bucket (with RECORDINGS_S3_URL they go to that bucket). */
  directory: string;
  /** MEDIA_RETENTION_DAYS: media older than this many days are removed; none: kept. */
  retentionDays: number | undefined;
}

/** RECORDINGS_S3_URL, parsed: s3://ACCESS_KEY:SECRET@host[:port]/bucket?region=...&path_style=true&tls=false */
export interface S3Location {
  /** https://host[:port], or http:// with tls=false (a local server). */
  endpoint: string;
  bucket: string;
  region: string;
  /** Bucket in the path (host/bucket/key), as MinIO and most local servers want; false: bucket.host. */
  forcePathStyle: boolean;
  /** Absent: the AWS SDK's own chain (AWS_ACCESS_KEY_ID, an instance role...). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

export interface SessionConfig {
  /** A session unused this long ends. */
  idleTimeoutMs: number;
  /** A session ends this long after login, however active. */
  maxAgeMs: number;
  /** Whether the session cookie is marked Secure (PUBLIC_URL is https://). */
  secureCookie: boolean;
  /** log2 of scrypt's N for new password hashes (PASSWORD_HASH_COST, default 15). */
  passwordHashCost: number;
}

export interface MqttLimitsConfig {
  /** Largest MQTT packet (fixed header included) once authenticated; a larger one closes the connection. */
  maxPacketBytes: number;
  /** A connection that has not sent a complete CONNECT within this time is closed. */
  connectTimeoutMs: number;
  /** Open MQTT connections (TCP and WebSocket) from one client address. */
  maxConnectionsPerAddress: number;
  /** Open MQTT connections in all (TCP, TLS and WebSocket); undefined: MQTT's share of the connection budget (half). */
  maxConnections: number | undefined;
}

export interface AuthThrottleConfig {
  /** Failed authentications from one address within windowMs after which its failures get 429 (valid credentials still work)... */
  failureLimit: number;
  /** ...for this long (and the window they are counted in). */
  windowMs: number;
  /** Failures from one address after which nothing it sends is checked, for windowMs; absent: 10 x failureLimit. */
  hardLimit?: number;
  /** Failures of one credential (login, key prefix, device id) within credentialWindowMs; a login is then locked. Absent: 10. */
  credentialFailureLimit?: number;
  /** The window of a credential's failures, and how long a login stays locked; absent: 15 minutes. */
  credentialWindowMs?: number;
  /** A refused MQTT CONNECT waits this long for its CONNACK 5 (slows a guesser's loop). */
  mqttRefusalDelayMs: number;
}

export interface HttpLimitsConfig {
  /** A connection that has not sent a request's complete headers within this time gets 408 and is closed. */
  headersTimeoutMs: number;
  /** A request body that has not arrived within this time of its headers gets 408; the connection is closed. */
  bodyTimeoutMs: number;
  /** Open HTTP connections from one client address (a trusted proxy is not capped). */
  maxConnectionsPerAddress: number;
  /** Open HTTP connections in all; undefined: HTTP's share of the connection budget (a quarter). */
  maxConnections: number | undefined;
}

export interface AdmissionConfig {
  /** API requests processed at once, at most. */
  maxInFlight: number;
  /** Latency (ms) accepted requests should keep; the in-flight limit adapts to it. 0: a fixed limit. */
  targetLatencyMs: number;
  /** Mean event-loop delay (ms) that marks the process as saturated; 0 turns the check off. */
  maxEventLoopDelayMs: number;
}

export interface WebhookConfig {
  /** Destinations allowed even though they are private, loopback or link-local (SSRF guard). */
  allowedHosts: string[];
  /** 32-byte key that encrypts signing secrets at rest; none: a key file in DATA_DIR. */
  secretKey: Buffer | undefined;
  /** How long a delivery is retried before it is given up. */
  retryForMs: number;
  /** First retry delay; each further retry doubles it (with jitter), up to an hour. */
  retryBaseMs: number;
  /**
   * A webhook is disabled when an attempt fails and its endpoint has been failing, without a
   * single success, for longer than this (a blip never disables it; a dead endpoint does).
   */
  disableAfterMs: number;
  /** Connect, headers and body timeout of one attempt. */
  timeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the whole configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  // Parsers throw an Error that says what is wrong with the value; the name is added here.
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T): T => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    try {
      return parse(raw.trim());
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      return fallback;
    }
  };

  const publicUrl = readUrl(env, 'PUBLIC_URL', ['http:', 'https:'], problems);
  const tls = readTls(env, problems);
  const mqttPortOff = env.MQTT_PORT?.trim().toLowerCase() === 'off';
  if (mqttPortOff && !tls) problems.push(PLAIN_MQTT_OFF_WITHOUT_TLS);
  const config: Config = {
    port: read('PORT', 3000, port),
    host: read('HOST', '0.0.0.0', text),
    mqttPort: mqttPortOff ? 1883 : read('MQTT_PORT', 1883, (raw) => portOr(raw, 'off')),
    plainMqtt: !mqttPortOff,
    tls,
    databaseUrl: readDatabaseUrl(env, problems),
    database: {
      // 0 turns the statement timeout off; the migrations never have one.
      statementTimeoutMs: read('DATABASE_STATEMENT_TIMEOUT', 30, (raw) => wholeNumber(raw, 0, 86_400)) * 1000,
      keepAliveMs: read('DATABASE_KEEPALIVE', 10, (raw) => wholeNumber(raw, 1, 7_200)) * 1000,
      stallTimeoutMs: read('DATABASE_STALL_TIMEOUT', 3, (raw) => wholeNumber(raw, 1, 600)) * 1000,
    },
    dataDir: read('DATA_DIR', './data', text),
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:'], problems),
    redisSentinel: readRedisSentinel(env, problems),
    nodeId: read('NODE_ID', defaultNodeId(), nodeId),
    redisPrefix: read('REDIS_PREFIX', 'sms-gateway', redisPrefix),
    presenceLeaseMs: read('PRESENCE_LEASE', 15, presenceLeaseSeconds) * 1000,
    shutdownDrainMs: read('SHUTDOWN_DRAIN', 0, (raw) => wholeNumber(raw, 0, 120)) * 1000,
    trustedProxies: read('TRUSTED_PROXIES', TrustedProxies.none(), (raw) => TrustedProxies.parse(raw.split(',').map((entry) => entry.trim()).filter(Boolean))),
    logLevel: read('LOG_LEVEL', 'info', (raw) => choice(raw, LOG_LEVELS)),
    logFormat: read<LogFormat | undefined>('LOG_FORMAT', undefined, (raw) => choice(raw, ['json', 'pretty'] as const)),
    bodyLimitBytes: read('BODY_LIMIT', 64 * 1024, bytes),
    defaultPhoneRegion: read<string | undefined>('DEFAULT_PHONE_REGION', undefined, region),
    deviceOfflineAfterMs: read('DEVICE_OFFLINE_AFTER', 300, positiveSeconds) * 1000,
    taskRetryAfterMs: read('TASK_RETRY_AFTER', 30, positiveSeconds) * 1000,
    failoverAfterMs: read('FAILOVER_AFTER', 60, positiveSeconds) * 1000,
    pauseAfterFailures: read('DEVICE_PAUSE_AFTER_FAILURES', 5, (raw) => wholeNumber(raw, 1, 1000)),
    pauseForMs: read('DEVICE_PAUSE_FOR', 600, positiveSeconds) * 1000,
    // The bounds of a request's own timeout_seconds (src/modules/ussd/schema.ts).
    ussdTimeoutMs: read('USSD_TIMEOUT', 30, (raw) => wholeNumber(raw, 5, 300)) * 1000,
    sendRetryBackoffMs: read('SEND_RETRY_BACKOFF', 30, (raw) => wholeNumber(raw, 0, 3600)) * 1000,
    simPauseAfterFailures: read('SIM_PAUSE_AFTER_FAILURES', 3, (raw) => wholeNumber(raw, 1, 1000)),
    simPauseForMs: read('SIM_PAUSE_FOR', 600, positiveSeconds) * 1000,
    admission: {
      maxInFlight: read('HTTP_MAX_IN_FLIGHT', 256, (raw) => wholeNumber(raw, 1, 100_000)),
      targetLatencyMs: read('HTTP_TARGET_LATENCY', 250, (raw) => wholeNumber(raw, 0, 60_000)),
      maxEventLoopDelayMs: read('MAX_EVENT_LOOP_DELAY', 150, (raw) => wholeNumber(raw, 0, 60_000)),
    },
    mqtt: {
      maxPacketBytes: read('MQTT_MAX_PACKET', 72 * 1024, mqttPacketBytes),
      connectTimeoutMs: read('MQTT_CONNECT_TIMEOUT', 10, (raw) => wholeNumber(raw, 1, 300)) * 1000,
      maxConnectionsPerAddress: read('MQTT_MAX_CONNECTIONS_PER_ADDRESS', 100, (raw) => wholeNumber(raw, 1, 1_000_000)),
      maxConnections: read<number | undefined>('MQTT_MAX_CONNECTIONS', undefined, (raw) => (raw.toLowerCase() === 'auto' ? undefined : wholeNumber(raw, 16, 10_000_000))),
    },
    authThrottle: authThrottle(read),
    connectionBudget: read<number | undefined>('CONNECTION_BUDGET', undefined, (raw) => (raw.toLowerCase() === 'auto' ? undefined : wholeNumber(raw, 64, 10_000_000))),
    httpLimits: {
      headersTimeoutMs: read('HTTP_HEADERS_TIMEOUT', 10, (raw) => wholeNumber(raw, 1, 300)) * 1000,
      bodyTimeoutMs: read('HTTP_BODY_TIMEOUT', 15, (raw) => wholeNumber(raw, 1, 3600)) * 1000,
      maxConnectionsPerAddress: read('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 256, (raw) => wholeNumber(raw, 1, 1_000_000)),
      maxConnections: read<number | undefined>('HTTP_MAX_CONNECTIONS', undefined, (raw) => (raw.toLowerCase() === 'auto' ? undefined : wholeNumber(raw, 16, 10_000_000))),
    },
    webhooks: {
      allowedHosts: read('WEBHOOK_ALLOWED_HOSTS', [], hostList),
      secretKey: read<Buffer | undefined>('WEBHOOK_SECRET_KEY', undefined, encryptionKey),
      // Up to a week: a receiver down over a long weekend gets its events once it is back.
      retryForMs: read('WEBHOOK_RETRY_FOR', 86_400, (raw) => wholeNumber(raw, 1, 604_800)) * 1000,
      retryBaseMs: read('WEBHOOK_RETRY_BASE_MS', 5_000, (raw) => wholeNumber(raw, 10, 3_600_000)),
      // Seconds (up to a year), no longer a count of attempts: 5 days by default.
      disableAfterMs: read('WEBHOOK_DISABLE_AFTER', 432_000, (raw) => wholeNumber(raw, 1, 31_536_000)) * 1000,
      timeoutMs: read('WEBHOOK_TIMEOUT', 10, (raw) => wholeNumber(raw, 1, 120)) * 1000,
    },
    publicUrl,
    mqttPublicUrl: read<MqttAddress | undefined>('MQTT_PUBLIC_URL', undefined, mqttAddress),
    sessions: {
      idleTimeoutMs: read('SESSION_IDLE_TIMEOUT', 1800, (raw) => wholeNumber(raw, 60, 2_592_000)) * 1000,
      maxAgeMs: read('SESSION_MAX_AGE', 43_200, (raw) => wholeNumber(raw, 60, 2_592_000)) * 1000,
      // Served over HTTPS by the gateway itself, or reached through an HTTPS proxy.
      secureCookie: tls !== undefined || (publicUrl?.toLowerCase().startsWith('https://') ?? false),
      // 10-20: below 15 is under OWASP's minimum and logged as such at start; above 20 a login
      // costs seconds and a gigabyte.
      passwordHashCost: read('PASSWORD_HASH_COST', 15, (raw) => wholeNumber(raw, 10, 20)),
    },
    adminEmail: read('ADMIN_EMAIL', 'admin@localhost', email),
    recordings: {
      maxBytes: read('RECORDING_MAX_BYTES', 50 * 1024 * 1024, recordingBytes),
      // The URL holds a secret: a bad one is described, never echoed (s3Location says what is wrong).
      s3: read<S3Location | undefined>('RECORDINGS_S3_URL', undefined, s3Location),
      directory: join(read('DATA_DIR', './data', text), 'recordings'),
      retentionDays: read<number | undefined>('RECORDINGS_RETENTION_DAYS', undefined, retentionDays),
    },
    mms: {
      // Carriers commonly take 300 KB to 1 MB per MMS; 600 KiB a part and 1 MiB a message pass most.
      maxPartBytes: read('MMS_MAX_PART_BYTES', 600 * 1024, recordingBytes),
      maxMessageBytes: read('MMS_MAX_MESSAGE_BYTES', 1024 * 1024, recordingBytes),
      directory: join(read('DATA_DIR', './data', text), 'media'),
      retentionDays: read<number | undefined>('MEDIA_RETENTION_DAYS', undefined, retentionDays),
    },
    legacyCountCap: read<number | 'off'>('LEGACY_COUNT_CAP', LEGACY_COUNT_CAP_DEFAULT, (raw) =>
      raw.toLowerCase() === 'off' ? 'off' : wholeNumber(raw, 1, 1_000_000_000)),
    inboundRules: {
      // The URL holds a password: a bad one is described, never echoed.
      smtpUrl: read<string | undefined>('SMTP_URL', undefined, smtpUrl),
      mailFrom: read('MAIL_FROM', 'sms-gateway@localhost', email),
      autoReplyWindowMs: read('AUTO_REPLY_WINDOW', 600, (raw) => wholeNumber(raw, 1, 604_800)) * 1000,
      regexTimeoutMs: read('RULE_REGEX_TIMEOUT_MS', 50, (raw) => wholeNumber(raw, 1, 1000)),
    },
    smpp: {
      port: read<number | undefined>('SMPP_PORT', undefined, (raw) => (raw.toLowerCase() === 'off' ? undefined : portOr(raw, 'off'))),
      tls: readSmppTls(env, problems),
      enquireLinkMs: read('SMPP_ENQUIRE_LINK_INTERVAL', 30, (raw) => wholeNumber(raw, 1, 3600)) * 1000,
      receiptRetentionMs: read('SMPP_RECEIPT_RETENTION', 259_200, (raw) => wholeNumber(raw, 60, 2_592_000)) * 1000,
      bindTimeoutMs: read('SMPP_BIND_TIMEOUT', SMPP_BIND_TIMEOUT_S, (raw) => wholeNumber(raw, 1, 300)) * 1000,
      maxConnections: read<number | undefined>('SMPP_MAX_CONNECTIONS', undefined, (raw) => (raw.toLowerCase() === 'auto' ? undefined : wholeNumber(raw, 1, 10_000_000))),
    },
    smtp: {
      port: read<number | undefined>('SMTP_PORT', undefined, (raw) => (raw.toLowerCase() === 'off' ? undefined : portOr(raw, 'off'))),
      domain: read<string | undefined>('SMTP_DOMAIN', undefined, mailDomain),
      tls: readSmtpTls(env, problems),
      text: read('SMTP_TEXT', 'body', (raw) => choice(raw, ['subject', 'body', 'both'] as const)),
      maxClients: read('SMTP_MAX_CLIENTS', 100, (raw) => wholeNumber(raw, 1, 100_000)),
      idleTimeoutMs: read('SMTP_IDLE_TIMEOUT', 60, (raw) => wholeNumber(raw, 1, 3600)) * 1000,
      dataTimeoutMs: read('SMTP_DATA_TIMEOUT', 60, (raw) => wholeNumber(raw, 1, 3600)) * 1000,
    },
    metrics: {
      // A secret: a bad one is described, never echoed.
      token: read<string | undefined>('METRICS_TOKEN', undefined, metricsToken),
      port: read<number | undefined>('METRICS_PORT', undefined, (raw) => (raw.toLowerCase() === 'off' ? undefined : portOr(raw, 'off'))),
      host: read('METRICS_HOST', read('HOST', '0.0.0.0', text), text),
    },
  };
  if (config.smtp.port !== undefined && !config.smtp.domain) problems.push('SMTP_DOMAIN: required with SMTP_PORT (mail to <number>@<SMTP_DOMAIN> becomes SMS), such as sms.example.com');
  // The shared Redis' variable, as the two rules below name it.
  const sharedRedis = config.redisSentinel ? 'REDIS_SENTINELS' : config.redisUrl ? 'REDIS_URL' : undefined;
  // Several nodes share their work through PostgreSQL; the embedded database belongs to one process.
  if (sharedRedis && !config.databaseUrl && !env.DATABASE_URL?.trim()) problems.push(EMBEDDED_WITH_REDIS.replaceAll('REDIS_URL', sharedRedis));
  // Each node would make a key file of its own, and could not sign the webhooks another node created.
  if (sharedRedis && !config.webhooks.secretKey && !env.WEBHOOK_SECRET_KEY?.trim()) problems.push(REDIS_WITHOUT_SHARED_KEY.replace('REDIS_URL', sharedRedis));
  if (tls && tls.mqttsPort !== 0) {
    // Two listeners on one port: the second would fail at start with a less helpful EADDRINUSE.
    if (tls.mqttsPort === config.port) problems.push(`MQTTS_PORT: ${tls.mqttsPort} is PORT's too; choose another`);
    else if (config.plainMqtt && tls.mqttsPort === config.mqttPort) problems.push(`MQTTS_PORT: ${tls.mqttsPort} is MQTT_PORT's too; choose another, or set MQTT_PORT=off`);
  }
  problems.push(...smppPortClashes(config));
  problems.push(...metricsPortClash(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * SMPP over TLS: SMPP_TLS_PORT with SMPP_TLS_CERT and SMPP_TLS_KEY, all three or none. The pair is
 * read and checked here, as TLS_CERT's is, so that a bad one stops the start naming the variable.
 */
function readSmppTls(env: Env, problems: string[]): SmppConfig['tls'] {
  const rawPort = env.SMPP_TLS_PORT?.trim() || undefined;
  const certFile = env.SMPP_TLS_CERT?.trim() || undefined;
  const keyFile = env.SMPP_TLS_KEY?.trim() || undefined;
  if (!rawPort && !certFile && !keyFile) return undefined;
  const missing = [!rawPort && 'SMPP_TLS_PORT', !certFile && 'SMPP_TLS_CERT', !keyFile && 'SMPP_TLS_KEY'].filter(Boolean);
  if (missing.length > 0) {
    problems.push(`${missing.join(', ')}: SMPP over TLS needs SMPP_TLS_PORT, SMPP_TLS_CERT and SMPP_TLS_KEY together (the port, the PEM certificate and its key)`);
    return undefined;
  }
  let tlsPort = 0;
  try {
    tlsPort = port(rawPort!);
  } catch (error) {
    problems.push(`SMPP_TLS_PORT: ${(error as Error).message}`);
    return undefined;
  }
  const pair = readCertificatePair({ certFile: certFile!, keyFile: keyFile! });
  if ('problems' in pair) problems.push(...pair.problems.map((problem) => problem.replace(/\bTLS_(CERT|KEY)\b/g, 'SMPP_TLS_$1')));
  return { port: tlsPort, certFile: certFile!, keyFile: keyFile! };
}

/** STARTTLS on the SMTP listener: SMTP_TLS_CERT and SMTP_TLS_KEY together, read and checked as TLS_CERT's are. */
function readSmtpTls(env: Env, problems: string[]): SmtpConfig['tls'] {
  const certFile = env.SMTP_TLS_CERT?.trim() || undefined;
  const keyFile = env.SMTP_TLS_KEY?.trim() || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    problems.push(`${!certFile ? 'SMTP_TLS_CERT' : 'SMTP_TLS_KEY'}: STARTTLS needs SMTP_TLS_CERT and SMTP_TLS_KEY together (the PEM certificate and its key)`);
    return undefined;
  }
  const pair = readCertificatePair({ certFile, keyFile });
  if ('problems' in pair) problems.push(...pair.problems.map((problem) => problem.replace(/\bTLS_(CERT|KEY)\b/g, 'SMTP_TLS_$1')));
  return { certFile, keyFile };
}

/** A domain name such as sms.example.com (letters, digits, dashes, dots), lower-cased. */
function mailDomain(raw: string): string {
  const domain = raw.trim().toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(domain)) {
    throw new Error(`must be a domain name such as sms.example.com, got "${raw}"`);
  }
  return domain;
}

/** Two listeners on one port: the second would fail at start with a less helpful EADDRINUSE. */
function smppPortClashes(config: Config): string[] {
  const taken: [string, number | undefined][] = [
    ['PORT', config.port],
    ['MQTT_PORT', config.plainMqtt ? config.mqttPort : undefined],
    ['MQTTS_PORT', config.tls?.mqttsPort],
  ];
  const problems: string[] = [];
  for (const [name, value] of [['SMPP_PORT', config.smpp.port], ['SMPP_TLS_PORT', config.smpp.tls?.port], ['SMTP_PORT', config.smtp.port]] as const) {
    if (!value) continue;
    const clash = taken.find(([, other]) => other === value);
    if (clash) problems.push(`${name}: ${value} is ${clash[0]}'s too; choose another`);
    taken.push([name, value]);
  }
  return problems;
}

/** The metrics listener on a port another listener of this gateway has: the second would fail at start. */
function metricsPortClash(config: Config): string[] {
  const port = config.metrics.port;
  if (!port) return [];
  const taken: [string, number | undefined][] = [
    ['PORT', config.port],
    ['MQTT_PORT', config.plainMqtt ? config.mqttPort : undefined],
    ['MQTTS_PORT', config.tls?.mqttsPort],
    ['SMPP_PORT', config.smpp.port],
    ['SMPP_TLS_PORT', config.smpp.tls?.port],
    ['SMTP_PORT', config.smtp.port],
  ];
  const clash = taken.find(([, other]) => other === port);
  return clash ? [`METRICS_PORT: ${port} is ${clash[0]}'s too; choose another`] : [];
}

/** A bearer token a scraper sends as it is: long enough not to be guessed, nothing a header could not carry. */
function metricsToken(raw: string): string {
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new Error('must be 16 to 256 visible ASCII characters without spaces, such as the output of "openssl rand -hex 32"');
  return raw;
}

type Reader = <T>(name: string, fallback: T, parse: (raw: string) => T) => T;

/** The throttle's limits; the hard limit is checked against the limit it must exceed. */
function authThrottle(read: Reader): AuthThrottleConfig {
  const failureLimit = read('AUTH_FAILURE_LIMIT', 30, (raw) => wholeNumber(raw, 1, 1_000_000));
  const hardLimit = read('AUTH_FAILURE_HARD_LIMIT', 10 * failureLimit, (raw) => {
    const value = wholeNumber(raw, 1, 100_000_000);
    if (value < failureLimit) throw new Error(`must be at least AUTH_FAILURE_LIMIT (${failureLimit}), got "${raw}"`);
    return value;
  });
  return {
    failureLimit,
    windowMs: read('AUTH_FAILURE_WINDOW', 60, positiveSeconds) * 1000,
    hardLimit,
    credentialFailureLimit: read('AUTH_CREDENTIAL_FAILURE_LIMIT', 10, (raw) => wholeNumber(raw, 1, 1_000_000)),
    credentialWindowMs: read('AUTH_CREDENTIAL_FAILURE_WINDOW', 900, positiveSeconds) * 1000,
    mqttRefusalDelayMs: 1_000,
  };
}

export const EMBEDDED_WITH_REDIS = 'REDIS_URL: several nodes cannot share the embedded database; set DATABASE_URL to PostgreSQL or unset REDIS_URL';

export const REDIS_WITHOUT_SHARED_KEY =
  'REDIS_URL: several nodes must share the key that encrypts webhook secrets; set WEBHOOK_SECRET_KEY (64 hex digits, the same on every node), e.g. from `openssl rand -hex 32`';

export const PLAIN_MQTT_OFF_WITHOUT_TLS = 'MQTT_PORT: "off" needs TLS_CERT and TLS_KEY (phones would then connect over MQTTS_PORT); without TLS, phones need the plain MQTT port';

/**
 * TLS_CERT and TLS_KEY, both or neither, and MQTTS_PORT. The files themselves are read and checked
 * here too (missing, unreadable, not PEM, a key of another certificate), so that a bad pair stops
 * the start with the other configuration problems instead of at the first handshake.
 */
function readTls(env: Env, problems: string[]): TlsConfig | undefined {
  const certFile = env.TLS_CERT?.trim() || undefined;
  const keyFile = env.TLS_KEY?.trim() || undefined;
  const rawMqttsPort = env.MQTTS_PORT?.trim() || undefined;
  if (!certFile && !keyFile) {
    if (rawMqttsPort) problems.push('MQTTS_PORT: needs TLS_CERT and TLS_KEY (MQTT over TLS serves their certificate)');
    return undefined;
  }
  if (!certFile || !keyFile) {
    const [missing, given] = certFile ? ['TLS_KEY', 'TLS_CERT'] : ['TLS_CERT', 'TLS_KEY'];
    problems.push(`${missing}: must be set with ${given} (both or neither): the PEM ${missing === 'TLS_KEY' ? 'private key of the certificate' : 'certificate of the key'}`);
    return undefined;
  }
  let mqttsPort = 8883;
  if (rawMqttsPort) {
    try {
      mqttsPort = port(rawMqttsPort);
    } catch (error) {
      problems.push(`MQTTS_PORT: ${(error as Error).message}`);
    }
  }
  const pair = readCertificatePair({ certFile, keyFile });
  if ('problems' in pair) problems.push(...pair.problems);
  return { certFile, keyFile, mqttsPort };
}

/** Names that fit a log field, a metric label and a Redis channel without escaping. */
const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;

function nodeId(raw: string): string {
  if (!NODE_ID.test(raw)) throw new Error(`must be 1-64 letters, digits, dots, underscores or dashes, got "${raw}"`);
  return raw;
}

/** host-pid: unique among the nodes of a deployment, and stable for the life of the process. */
function defaultNodeId(): string {
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 50) || 'node';
  return `${host}-${process.pid}`;
}

function redisPrefix(raw: string): string {
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new Error(`must be 1-64 letters, digits, dots, colons, underscores or dashes, got "${raw}"`);
  return raw;
}

function smtpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error('must be a URL such as smtp://user:password@mail.example.com:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('must start with smtp:// or smtps://');
  if (!url.hostname) throw new Error('must name a host');
  return url.toString();
}

function email(raw: string): string {
  if (!/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(raw)) throw new Error(`must be an email address such as admin@example.com, got "${raw}"`);
  return raw.toLowerCase();
}

function text(raw: string): string {
  return raw;
}

function port(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new Error(`must be a port number (0-65535), got "${raw}"`);
  return Number(raw);
}

/** A port, or a word that turns the listener off (read before this is called). */
function portOr(raw: string, word: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new Error(`must be a port number (0-65535) or ${word}, got "${raw}"`);
  return Number(raw);
}

function presenceLeaseSeconds(raw: string): number {
  // Renewed every third of it: below 3 s a busy event loop could miss a renewal; above 300 s a
  // killed node's phones would look online for minutes.
  if (!/^\d+$/.test(raw) || Number(raw) < 3 || Number(raw) > 300) {
    throw new Error(`must be a whole number of seconds between 3 and 300, got "${raw}"`);
  }
  return Number(raw);
}

function positiveSeconds(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 86_400) {
    throw new Error(`must be a whole number of seconds between 1 and 86400, got "${raw}"`);
  }
  return Number(raw);
}

function bytes(raw: string): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw);
  if (!match) throw new Error(`must be a size such as 65536, 64kb or 1mb, got "${raw}"`);
  const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
  const value = Number(match[1]) * unit;
  if (value < 1024 || value > 16 * 1024 * 1024) throw new Error(`must be between 1kb and 16mb, got "${raw}"`);
  return value;
}

/** A recording's size limit: from 1 KiB (a few seconds of AMR) to 4 GiB. */
function recordingBytes(raw: string): number {
  const match = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw);
  if (!match) throw new Error(`must be a size such as 52428800, 50mb or 1gb, got "${raw}"`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  const value = Number(match[1]) * unit;
  if (value < 1024 || value > 4 * 1024 ** 3) throw new Error(`must be between 1kb and 4gb, got "${raw}"`);
  return value;
}

/** "keep" (or unset): no retention; else a whole number of days. */
function retentionDays(raw: string): number | undefined {
  if (raw.toLowerCase() === 'keep') return undefined;
  return wholeNumber(raw, 1, 36_500);
}

/**
 * s3://ACCESS_KEY:SECRET@host[:port]/bucket?region=us-east-1&path_style=true&tls=false. Messages
 * name what is wrong and never repeat the value: it carries the secret key.
 */
function s3Location(raw: string): S3Location {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('is not a valid URL (expected s3://ACCESS_KEY:SECRET@host[:port]/bucket?region=...)');
  }
  if (url.protocol !== 's3:') throw new Error('must start with s3:// (s3://ACCESS_KEY:SECRET@host[:port]/bucket?region=...)');
  if (!url.hostname) throw new Error('must name the S3 endpoint\'s host (s3://ACCESS_KEY:SECRET@host[:port]/bucket)');
  const bucket = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  if (!/^[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error('must name a bucket as its path: 3-63 lower-case letters, digits, dots or dashes');
  const known = new Set(['region', 'path_style', 'tls']);
  for (const name of url.searchParams.keys()) if (!known.has(name)) throw new Error(`has an unknown parameter "${name}" (known: region, path_style, tls)`);
  const flag = (name: string, fallback: boolean): boolean => {
    const value = url.searchParams.get(name);
    if (value === null) return fallback;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new Error(`${name} must be true or false`);
  };
  const region = url.searchParams.get('region') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,32}$/.test(region)) throw new Error('region must be a region name such as us-east-1');
  if ((url.username === '') !== (url.password === '')) throw new Error('must give both the access key and the secret (ACCESS_KEY:SECRET@), or neither');
  return {
    endpoint: `${flag('tls', true) ? 'https' : 'http'}://${url.host}`,
    bucket,
    region,
    forcePathStyle: flag('path_style', false),
    credentials: url.username ? { accessKeyId: decodeURIComponent(url.username), secretAccessKey: decodeURIComponent(url.password) } : undefined,
  };
}

/**
 * mqtt://host:port or mqtts://host:port, nothing else: a phone is given exactly a host, a port and
 * whether to use TLS, so a path, a user or a query here would be silently lost. Without a port,
 * MQTT's usual ones (1883, 8883).
 */
function mqttAddress(raw: string): MqttAddress {
  const expected = 'mqtt://host:port or mqtts://host:port';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not echoed: it may hold a password by mistake.
    throw new Error(`is not a valid URL (expected ${expected})`);
  }
  // Checked first, so that no message below repeats a password.
  if (url.username || url.password) throw new Error(`must not carry a user or password (${expected}): devices log in with their own credentials`);
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') throw new Error(`must start with mqtt:// or mqtts:// (${expected}), got "${raw}"`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (!host) throw new Error(`must name a host (${expected}), got "${raw}"`);
  // The URL parser lets a non-web scheme's host hold almost anything (percent-escapes included).
  if (!/^[a-z0-9.-]+$/.test(host) && !(host.includes(':') && ipaddr.IPv6.isValid(host))) {
    throw new Error(`must name a host as a DNS name or an IP address (${expected}), got "${raw}"`);
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) throw new Error(`must be only a scheme, a host and a port (${expected}), got "${raw}"`);
  const tls = url.protocol === 'mqtts:';
  const port = url.port === '' ? (tls ? 8883 : 1883) : Number(url.port);
  if (port === 0) throw new Error(`must name a port from 1 to 65535, got "${raw}"`);
  return { host, port, tls };
}

/** A device payload may be 64 KiB; its topic and headers need room besides. */
function mqttPacketBytes(raw: string): number {
  const value = bytes(raw);
  if (value < 66 * 1024) throw new Error(`must be at least 66kb (a device message may carry 64 KiB), got "${raw}"`);
  return value;
}

/**
 * Matches a legacy search counts by default: the most, of 1,000, 2,000, 5,000 and 10,000, whose
 * count and page together stay within the legacy search's p99 target of 50 ms on the bench's
 * 1,000,000 rows (a word in 1 SMS of 8, a status in 1 of 10): counting up to 2,000 took p99
 * 21-29 ms beside a page of 13-16 ms; up to 5,000, 39-76 ms (BENCHMARKS.md, 5a).
 */
const LEGACY_COUNT_CAP_DEFAULT = 2_000;

function wholeNumber(raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** Comma-separated host names, IP addresses or CIDR ranges. */
function hostList(raw: string): string[] {
  const entries = raw.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  for (const entry of entries) {
    if (!/^[a-z0-9.:\-]+(\/\d{1,3})?$/.test(entry)) throw new Error(`"${entry}" is not a host name, address or CIDR range`);
    if (entry.includes('/') && !ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a valid CIDR range`);
  }
  return entries;
}

function encryptionKey(raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex digits or base64');
  return key;
}

function choice<T extends string>(raw: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw new Error(`must be one of ${choices.join(', ')}, got "${raw}"`);
}

function region(raw: string): string {
  if (!/^[A-Za-z]{2}$/.test(raw)) throw new Error(`must be a two-letter ISO 3166 region such as RU or DE, got "${raw}"`);
  return raw.toUpperCase();
}

/** DATABASE_URL: one PostgreSQL server, or several as libpq lists them (storage/database-hosts.ts). */
function readDatabaseUrl(env: Env, problems: string[]): string | undefined {
  const raw = env['DATABASE_URL']?.trim();
  if (!raw) return undefined;
  try {
    parseDatabaseUrl(raw);
    return raw;
  } catch (error) {
    // The message never holds the value, which may hold a password.
    problems.push(`DATABASE_URL: ${(error as Error).message}`);
    return undefined;
  }
}

function readUrl(env: Env, name: string, protocols: string[], problems: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (protocols.includes(url.protocol)) return raw;
    problems.push(`${name}: must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  } catch {
    // The value may hold a password: never echo it back.
    problems.push(`${name}: is not a valid URL`);
  }
  return undefined;
}
