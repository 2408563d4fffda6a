// Tells an account's owners by email when its SIMs become degraded or recover: one short mail per
// batch of changes, once committed, when the gateway has an SMTP server (SMTP_URL). It names the
// device and SIM slot and says why; never a message's text or a phone number.
import type { Logger } from '../../../common/logger.ts';
import type { SimHealthChange } from '../domain-events.ts';

export interface OwnerMailParts {
  /** Sends one mail (the gateway's mailer, From MAIL_FROM). */
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
  /** The emails of the account's owners who may log in. */
  ownerEmails(accountId: string): Promise<string[]>;
  /** The device's name as its owner knows it; undefined once deleted. */
  deviceName(accountId: string, deviceId: string): Promise<string | undefined>;
  logger: Logger;
}

/** Mails the owners of each account in the batch; a mail that fails is logged, never thrown. */
export async function mailHealthChanges(parts: OwnerMailParts, changes: SimHealthChange[]): Promise<void> {
  const byAccount = new Map<string, SimHealthChange[]>();
  for (const change of changes) byAccount.set(change.accountId, [...(byAccount.get(change.accountId) ?? []), change]);
  for (const [accountId, batch] of byAccount) {
    try {
      const owners = await parts.ownerEmails(accountId);
      if (owners.length === 0) continue;
      const names = new Map<string, string>();
      for (const change of batch) if (!names.has(change.deviceId)) names.set(change.deviceId, (await parts.deviceName(accountId, change.deviceId)) ?? change.deviceId);
      const mail = healthMail(batch, names);
      for (const to of owners) await parts.send({ to, ...mail });
    } catch (error) {
      parts.logger.warn({ err: error, accountId, changes: batch.length }, 'health change mail not sent');
    }
  }
}

/** The subject and text of one batch's mail. */
export function healthMail(batch: SimHealthChange[], names: ReadonlyMap<string, string>): { subject: string; text: string } {
  const degraded = batch.filter((change) => change.state === 'degraded').length;
  const recovered = batch.length - degraded;
  const counts = [degraded > 0 ? `${degraded} degraded` : '', recovered > 0 ? `${recovered} recovered` : ''].filter(Boolean).join(', ');
  const lines = batch.map((change) => {
    const what = change.state === 'degraded' ? `degraded (${change.fault === 'receive' ? 'does not receive' : 'does not send'})` : 'healthy again';
    return `- ${names.get(change.deviceId) ?? change.deviceId}, SIM ${change.simSlot}: ${what}: ${change.reason}`;
  });
  const closing =
    degraded > 0
      ? 'A SIM that does not send is given no new SMS until a canary SMS it sends arrives again, or until you mark it healthy (POST /api/ext/v1/devices/{id}/health/mark-healthy).'
      : 'It takes SMS again.';
  return { subject: `SMS gateway: SIM health changed (${counts})`, text: `${lines.join('\n')}\n\n${closing}\n` };
}
