// A received SMS through the account's inbound rules, once it is stored: the rules module decides
// which match (and counts them, and tags); what they send goes out here. Auto-replies and SMS
// forwards are SMS created through the create-SMS use case from the phone (and SIM) that received
// the SMS, once each (the rule and the received SMS make the idempotency key), and refused like
// any send to a number that opted out. An auto-reply goes to a sender at most once per window,
// and never answers a text that is itself an automatic answer, so two auto-responders stop.
import type { IncomingSmsRow } from '../modules/incoming/types.ts';
import type { InboundRuleService } from '../modules/inbound-rules/service.ts';
import type { Mailer } from '../modules/inbound-rules/mailer.ts';
import type { InboundRuleRow } from '../modules/inbound-rules/types.ts';
import { MESSAGE_MAX_CHARACTERS } from '../modules/messages/schema.ts';
import { AppError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { createSms, type CreateSmsParts } from './create-sms.ts';

export interface ApplyInboundRulesParts extends CreateSmsParts {
  rules: InboundRuleService;
  mailer: Mailer;
  logger: Logger;
}

export type RuleActionResult = 'sent' | 'skipped' | 'failed';

/** `sms` is a received SMS, or the text of a received MMS (`kind: 'mms'`, which no rule tags: tags hang on received SMS). */
export async function applyInboundRules(parts: ApplyInboundRulesParts, sms: IncomingSmsRow, kind: 'sms' | 'mms' = 'sms'): Promise<RuleActionResult[]> {
  const matched = await parts.rules.apply(sms, { tags: kind === 'sms' });
  const results: RuleActionResult[] = [];
  for (const rule of matched) {
    try {
      results.push(await carryOut(parts, rule, sms));
    } catch (error) {
      // A number that opted out is not an error of the rule: it is simply not sent to.
      if (error instanceof AppError && error.code === 'recipient_opted_out') {
        results.push('skipped');
        continue;
      }
      parts.logger.warn({ err: error instanceof AppError ? error.code : error, ruleId: rule.id, action: rule.action }, 'inbound rule action failed');
      results.push('failed');
    }
  }
  return results;
}

async function carryOut(parts: ApplyInboundRulesParts, rule: InboundRuleRow, sms: IncomingSmsRow): Promise<RuleActionResult> {
  if (rule.action === 'auto_reply') {
    if (parts.rules.looksAutomatic(sms.message)) return 'skipped';
    if (!(await parts.rules.claimAutoReply(sms.account_id, sms.phone))) return 'skipped';
    await send(parts, rule, sms, sms.phone, rule.reply_text!);
    return 'sent';
  }
  if (rule.action === 'forward_sms') {
    await send(parts, rule, sms, rule.forward_to!, `From ${sms.phone}: ${sms.message}`);
    return 'sent';
  }
  await parts.mailer.send({
    to: rule.email_to!,
    subject: `SMS from ${sms.phone}`,
    text: `${sms.message}\n\nFrom: ${sms.phone}\nReceived: ${sms.received_at.toISOString()}\nDevice: ${sms.device_id}${sms.sim_slot === null ? '' : `\nSIM slot: ${sms.sim_slot}`}\nRule: ${rule.name || rule.id}\n`,
  });
  return 'sent';
}

async function send(parts: ApplyInboundRulesParts, rule: InboundRuleRow, sms: IncomingSmsRow, to: string, text: string): Promise<void> {
  const message = [...text].slice(0, MESSAGE_MAX_CHARACTERS).join('');
  await createSms(
    parts,
    sms.account_id,
    { key: `rule:${rule.id}:${sms.id}`, operation: 'inbound rule', body: { to, message } },
    async () => [await parts.messages.prepare(sms.account_id, { phone: to, message, ...(sms.device_id ? { deviceId: sms.device_id } : {}), simSlot: sms.sim_slot, wayIn: 'rule' })],
    () => ({ status: 201, body: null }),
  );
}
