// The gateway's HTTP server: the Extended API, the phones' uploads and the legacy family as route
// families; the panel, the agent download, MCP, the Twilio-compatible API, health and metrics
// mounted beside them; behind the deadlines, connection limits and admission control that bound
// hostile clients before any of it runs. Made here, listened on by the gateway.
import type Router from '@koa/router';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { answerClientErrors } from '../http/client-errors.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Admission } from '../common/admission.ts';
import type { AuthThrottle } from '../common/auth-throttle.ts';
import type { Metrics } from '../common/metrics.ts';
import { defaultConnectionBudget, listenerShares } from '../common/file-descriptors.ts';
import type { AccountService } from '../modules/accounts/service.ts';
import type { ApiKeyService } from '../modules/api-keys/service.ts';
import type { SessionService } from '../modules/sessions/service.ts';
import type { CertificateReloader } from '../tls/certificate-reloader.ts';
import { createApp } from '../http/app.ts';
import { EXTENDED_PREFIX } from '../http/extended-prefix.ts';
import type { MetricsEndpoint } from '../http/metrics-endpoint.ts';
import type { Authenticator } from '../http/middleware/authenticate.ts';
import { admissionControl } from '../http/middleware/admission.ts';
import { bodyDeadline } from '../http/middleware/body-deadline.ts';
import { httpMetrics } from '../http/middleware/http-metrics.ts';
import { mountAgentDownload } from '../http/agent/routes.ts';
import { mountPanel } from '../http/panel/routes.ts';
import type { RouteDefinition } from '../http/route.ts';
import { httpServerOptions, limitConnections } from '../http/server-limits.ts';
import { listen } from '../common/listen.ts';
import { DEVICE_PREFIX } from './extended/calls/recordings/routes.ts';
import { mountHealth } from './extended/health/routes.ts';
import { legacyRoutes, type LegacyParts } from './legacy/routes.ts';
import { mountMcpEndpoint } from './mcp/http-endpoint.ts';
import { mountTwilioApi, type TwilioApiParts } from './twilio/api.ts';

/** The services the HTTP way in calls itself (the route families bring their own). */
export type HttpServerParts = LegacyParts &
  Omit<TwilioApiParts, 'accountDisabled' | 'bodyLimitBytes' | 'publicUrl'> & {
    accounts: AccountService;
    apiKeys: ApiKeyService;
    sessions: SessionService;
    authThrottle: AuthThrottle;
    admission: Admission;
    metrics: Metrics;
  };

export interface HttpServerOptions {
  config: Config;
  logger: Logger;
  version: string;
  /** The Extended API's routes, in the document's order. */
  extendedRoutes: RouteDefinition[];
  /** The phones' own endpoints (uploads), with device credentials, not API keys. */
  phoneRoutes: RouteDefinition[];
  /** What features mount outside the API families (providers' callbacks). */
  mounts: ((router: Router) => void)[];
  health: {
    brokerListening: () => boolean;
    /** Without Redis a node keeps serving what it holds: reported, not required. */
    redis?: () => Promise<void>;
    draining: () => boolean;
  };
  metricsEndpoint: MetricsEndpoint;
  /** With TLS the port speaks HTTPS only. */
  certificates?: CertificateReloader | undefined;
}

/** The server, not yet listening; `https` is the same server when it speaks TLS. */
export function createHttpServer(parts: HttpServerParts, options: HttpServerOptions): { server: Server; https?: HttpsServer } {
  const { config, logger: parent, certificates, health } = options;
  const logger = parent.child({ component: 'http' });
  const isDisabled = (accountId: string) => parts.accounts.isDisabled(accountId);
  // Unknown keys are counted per client address; an address with too many is refused (429).
  // A request without a key may carry a session cookie (the control panel's users).
  const authenticator: Authenticator = {
    authenticate: (key) => parts.apiKeys.authenticate(key),
    authenticateSession: (token) => parts.sessions.authenticate(token),
    sessionCookie: { secure: config.sessions.secureCookie },
    accountDisabled: isDisabled,
    throttle: parts.authThrottle,
  };
  const app = createApp({
    logger,
    authenticator,
    bodyLimitBytes: config.bodyLimitBytes,
    version: options.version,
    publicUrl: config.publicUrl,
    measure: httpMetrics(parts.metrics),
    trustedProxies: config.trustedProxies,
    database: parts.db,
    families: [
      { prefix: EXTENDED_PREFIX, routes: options.extendedRoutes },
      { prefix: DEVICE_PREFIX, routes: options.phoneRoutes },
      // The legacy family lives at the server root (no prefix, no version).
      { prefix: '', routes: legacyRoutes(parts, { countCap: config.legacyCountCap }), ignoresUnknownQuery: true },
    ],
    mountExtra: (router) => {
      mountPanel(router);
      // The device agent and the script that installs it on a phone, from this gateway.
      mountAgentDownload(router, { publicUrl: config.publicUrl, trustedProxies: config.trustedProxies });
      // The MCP endpoint for AI assistants: its tools call this gateway's API with the request's key.
      mountMcpEndpoint(router, authenticator, config.bodyLimitBytes);
      // The Twilio-compatible API: Twilio's paths, HTTP Basic with a Twilio credential, form bodies, Twilio's errors.
      mountTwilioApi(router, { ...parts, accountDisabled: isDisabled, bodyLimitBytes: config.bodyLimitBytes, publicUrl: config.publicUrl });
      mountHealth(
        router,
        parts.db,
        {
          broker: async () => {
            if (!health.brokerListening()) throw new Error('broker not listening');
          },
          // Turning API requests away (503 overloaded): a balancer should send them elsewhere.
          admission: async () => {
            if (parts.admission.busy()) throw new Error('refusing requests');
          },
        },
        health.redis ? { redis: health.redis } : {},
        health.draining,
      );
      options.metricsEndpoint.mount(router);
      for (const mount of options.mounts) mount(router);
    },
  });
  // Hostile clients are bounded before the application: header and body deadlines,
  // connections per address and in all (src/http/server-limits.ts), then admission control.
  const handler = bodyDeadline(
    { timeoutMs: config.httpLimits.bodyTimeoutMs, exempt: [DEVICE_PREFIX], metrics: parts.metrics },
    admissionControl(parts.admission, parts.metrics, logger, app.callback()),
  );
  const serverOptions = { keepAliveTimeout: 65_000, ...httpServerOptions(config.httpLimits) };
  // With TLS the HTTP port speaks HTTPS only (the API, the panel, /docs and WSS at /mqtt alike):
  // a plain request there fails its handshake rather than sending a key or a cookie in clear.
  const https = certificates && createHttpsServer({ ...serverOptions, ...certificates.secureContext, handshakeTimeout: 10_000 }, handler);
  const server = https ?? createServer(serverOptions, handler);
  // What the HTTP parser refuses is answered in the API's error shape too.
  answerClientErrors(server);
  // One connection budget for the process, shared out among the listeners (src/common/file-descriptors.ts).
  const share = listenerShares(config.connectionBudget ?? defaultConnectionBudget()).http;
  limitConnections(server, { ...config.httpLimits, maxConnections: config.httpLimits.maxConnections ?? share }, config.trustedProxies, { metrics: parts.metrics, logger });
  return https ? { server, https } : { server };
}

/** Listens on PORT; a port already taken fails the start with the setting to change. */
export function listenHttp(server: Server, { port, host }: Pick<Config, 'port' | 'host'>): Promise<void> {
  return listen(server, { port, host }, 'PORT');
}
