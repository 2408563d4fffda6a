// The SMTP listener (email to SMS), on when SMTP_PORT and SMTP_DOMAIN are set (off, nothing of it
// runs). A login is an API key holding sms:send, checked as the API checks it: a revoked key
// fails, failures count in the throttle of API keys.
import { ConfigError } from '../../config.ts';
import { defineFeature } from '../../composition/feature.ts';
import { Started } from '../../composition/started.ts';
import { describeEnvironmentError } from '../../common/errors.ts';
import { readCertificatePair } from '../../tls/certificate-pair.ts';
import { lackedPermissions } from '../api-keys/permissions.ts';
import { MailListener } from '../../api/mail/listener.ts';
import { MailSubmissions } from '../../api/mail/submission.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The SMTP listener (email to SMS); none unless SMTP_PORT and SMTP_DOMAIN are set. */
    mailServer?: Started<MailListener>;
  }
}

export const mailListenerFeature = defineFeature({
  name: 'mail-listener',
  provides: ['mailServer'],
  enabled: ({ smtp }) => smtp.port !== undefined && Boolean(smtp.domain),
  make: ({ config, db, logger }, need) => {
    const { smtp } = config;
    let tls: { cert: Buffer; key: Buffer } | undefined;
    if (smtp.tls) {
      const reading = readCertificatePair(smtp.tls);
      if ('problems' in reading) throw new ConfigError(reading.problems.map((problem) => problem.replace(/\bTLS_(CERT|KEY)\b/g, 'SMTP_TLS_$1')));
      tls = { cert: reading.pair.cert, key: reading.pair.key };
    }
    const apiKeys = need('apiKeys');
    const accounts = need('accounts');
    const submissions = new MailSubmissions({ db, messages: need('messages'), idempotency: need('idempotency'), mail: need('mail') });
    const open = () =>
      MailListener.start(
        {
          authenticate: async (key) => {
            const context = await apiKeys.authenticate(key);
            if (!context) return { refused: 'the password is not a live API key' };
            if (lackedPermissions(context.permissions, ['sms:send']).length > 0) return { refused: 'the API key lacks sms:send' };
            if (await accounts.isDisabled(context.accountId)) return { refused: 'the account is disabled' };
            return { user: { accountId: context.accountId, keyId: context.keyId } };
          },
          submissions,
          authThrottle: need('authThrottle'),
          metrics: need('metrics'),
          logger: logger.child({ component: 'smtp' }),
        },
        { host: config.host, port: smtp.port!, domain: smtp.domain!, tls, maxClients: smtp.maxClients, idleTimeoutMs: smtp.idleTimeoutMs, dataTimeoutMs: smtp.dataTimeoutMs },
      ).catch((error: unknown) => {
        throw describeEnvironmentError(error, { port: ['SMTP_PORT', smtp.port!, config.host] });
      });
    return { mailServer: new Started(open) };
  },
  runs: ({ mailServer }, { config }) => [
    {
      name: 'SMTP listener',
      start: () => mailServer!.start(),
      stop: () => mailServer!.stop(),
      stopsIn: 'ways-in',
      listening: () => ({ smtpPort: mailServer!.current?.port ?? 'off', smtpDomain: config.smtp.domain!, smtpStartTls: config.smtp.tls !== undefined }),
    },
  ],
});
