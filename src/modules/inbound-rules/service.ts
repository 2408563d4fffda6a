// Inbound rules: per account, ordered rules tried on every SMS the account's phones receive. A
// rule matches on a keyword, a regular expression (run with a time limit, safe-regex.ts), the
// sender, the device or the SIM (every condition it names must hold); it auto-replies, forwards
// by SMS or email, or tags the SMS. This module decides and counts; sending is the
// apply-inbound-rules use case's.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError, invalidField, orNotFound } from '../../common/errors.ts';
import { normalizePhone } from '../../common/phone.ts';
import { foldKeyword } from '../opt-out/keywords.ts';
import * as rules from './repository.ts';
import { SafeRegex } from './safe-regex.ts';
import type { InboundRuleRow, RuleAction, RuleInput, RuleOutcome } from './types.ts';

/** Rules one account may have. */
export const MAX_RULES = 100;

/** Texts that are themselves automatic answers: never auto-replied to, so two auto-responders cannot talk forever. */
const AUTOMATIC = /\b(auto[- ]?reply|automatic reply|auto[- ]?response|autoresponder|out of (the )?office|do not reply|no[- ]?reply)\b/iu;

export interface RuleFields {
  name?: string | undefined;
  enabled?: boolean | undefined;
  match_keyword?: string | null | undefined;
  match_regex?: string | null | undefined;
  match_sender?: string | null | undefined;
  match_device_id?: string | null | undefined;
  match_sim_slot?: number | null | undefined;
  action?: RuleAction | undefined;
  reply_text?: string | null | undefined;
  forward_to?: string | null | undefined;
  email_to?: string | null | undefined;
  tags?: string[] | undefined;
  stop_after?: boolean | undefined;
}

export interface InboundRulesConfig {
  regexTimeoutMs: number;
  autoReplyWindowMs: number;
}

export class InboundRuleService {
  private readonly regex: SafeRegex;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly defaultPhoneRegion: string | undefined,
    private readonly config: InboundRulesConfig,
    /** Whether a device id names one of the account's devices (the devices module answers). */
    private readonly devices: { exists(accountId: string, deviceId: string): Promise<boolean> },
  ) {
    this.regex = new SafeRegex(config.regexTimeoutMs);
  }

  list(accountId: string): Promise<InboundRuleRow[]> {
    return rules.listRules(this.db, accountId);
  }

  get(accountId: string, id: string): Promise<InboundRuleRow> {
    return orNotFound(rules.findRule(this.db, accountId, id), 'inbound_rule_not_found');
  }

  /** Adds a rule after the others. */
  async create(accountId: string, fields: RuleFields & { action: RuleAction }): Promise<InboundRuleRow> {
    const values = await this.checked(accountId, { ...EMPTY_RULE, ...fields });
    return this.db.transaction(async (trx) => {
      const count = await rules.countRules(trx, accountId);
      if (count >= MAX_RULES) throw invalidField('', `an account may have at most ${MAX_RULES} inbound rules`);
      return rules.insertRule(trx, accountId, { id: randomUUID(), ...values }, count);
    });
  }

  async update(accountId: string, id: string, fields: RuleFields): Promise<InboundRuleRow> {
    const current = await this.get(accountId, id);
    const values = await this.checked(accountId, { ...current, ...fields });
    return orNotFound(rules.updateRule(this.db, accountId, id, values), 'inbound_rule_not_found');
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await rules.deleteRule(this.db, accountId, id))) throw new AppError('inbound_rule_not_found');
  }

  /** Puts the rules in the order of `ids`, which must name every rule of the account once. */
  async reorder(accountId: string, ids: string[]): Promise<InboundRuleRow[]> {
    return this.db.transaction(async (trx) => {
      const current = await rules.listRules(trx, accountId);
      const known = new Set(current.map((rule) => rule.id));
      const given = new Set(ids.map((id) => id.toLowerCase()));
      if (given.size !== ids.length || given.size !== known.size || [...given].some((id) => !known.has(id))) {
        throw invalidField('ids', 'ids must name every rule of the account exactly once');
      }
      for (const [position, id] of [...given].entries()) await rules.setPosition(trx, accountId, id, position);
      return rules.listRules(trx, accountId);
    });
  }

  /** What each rule makes of a sample SMS; nothing is counted or done. */
  async dryRun(accountId: string, input: RuleInput): Promise<RuleOutcome[]> {
    return this.outcomes(await rules.listRules(this.db, accountId), input);
  }

  /**
   * Tries the account's rules on a received SMS: counts each matching rule's hit (and each
   * regular expression that ran out of time), stores the tags of the tagging rules, and answers
   * the matched rules whose actions are still to be carried out (replies and forwards). Tags hang
   * on a received SMS (GET /incoming/{id}/tags): the text of a received MMS (`tags: false`) is
   * matched and counted, and tagged by nothing.
   */
  async apply(sms: RuleInput & { id: string; account_id: string }, { tags = true }: { tags?: boolean } = {}): Promise<InboundRuleRow[]> {
    const all = await rules.listRules(this.db, sms.account_id);
    if (all.length === 0) return [];
    const outcomes = this.outcomes(all, sms);
    const matched = outcomes.filter((outcome) => outcome.matched).map((outcome) => outcome.rule);
    const timedOut = outcomes.filter((outcome) => outcome.timedOut).map((outcome) => outcome.rule.id);
    const at = new Date(this.clock.now());
    await this.db.transaction(async (trx) => {
      await rules.countHits(trx, matched.map((rule) => rule.id), at);
      await rules.countTimeouts(trx, timedOut, at);
      if (tags) await rules.addTags(trx, sms.account_id, sms.id, [...new Set(matched.filter((rule) => rule.action === 'tag').flatMap((rule) => rule.tags))]);
    });
    return matched.filter((rule) => rule.action !== 'tag');
  }

  /** Whether an auto-reply may go to this sender now (at most one per sender per window); takes the turn if so. */
  claimAutoReply(accountId: string, phone: string): Promise<boolean> {
    return rules.claimAutoReply(this.db, accountId, phone, new Date(this.clock.now()), this.config.autoReplyWindowMs);
  }

  /** Whether the text is itself an automatic answer, which is never auto-replied to. */
  looksAutomatic(text: string): boolean {
    return AUTOMATIC.test(text);
  }

  /** The tags of one received SMS of the account; sms_not_found when the account received none with this id. */
  tagsOf(accountId: string, incomingId: string): Promise<string[]> {
    return orNotFound(rules.tagsOf(this.db, accountId, incomingId), 'sms_not_found');
  }

  private outcomes(all: InboundRuleRow[], input: RuleInput): RuleOutcome[] {
    const outcomes: RuleOutcome[] = [];
    let stopped = false;
    for (const rule of all) {
      if (stopped || !rule.enabled) {
        outcomes.push({ rule, matched: false, timedOut: false });
        continue;
      }
      const outcome = this.tryRule(rule, input);
      outcomes.push(outcome);
      if (outcome.matched && rule.stop_after) stopped = true;
    }
    return outcomes;
  }

  /** Cheap conditions first: the regular expression runs only when everything else holds. */
  private tryRule(rule: InboundRuleRow, input: RuleInput): RuleOutcome {
    const no = { rule, matched: false, timedOut: false };
    if (rule.match_device_id && rule.match_device_id !== input.device_id) return no;
    if (rule.match_sim_slot !== null && rule.match_sim_slot !== input.sim_slot) return no;
    if (rule.match_sender && this.senderKey(rule.match_sender) !== this.senderKey(input.phone)) return no;
    if (rule.match_keyword) {
      const word = words(rule.match_keyword);
      const text = words(input.message);
      if (text !== word && !text.startsWith(`${word} `)) return no;
    }
    if (rule.match_regex) {
      const result = this.regex.test(rule.match_regex, input.message);
      if (result !== 'match') return { rule, matched: false, timedOut: result === 'timeout' };
    }
    return { rule, matched: true, timedOut: false };
  }

  private senderKey(phone: string): string {
    return normalizePhone(phone, this.defaultPhoneRegion) ?? phone.trim().toLowerCase();
  }

  /** The rule's values once each is checked, with what its action needs. */
  private async checked(accountId: string, rule: Required<RuleFields>): Promise<Omit<rules.RuleValues, 'id'>> {
    if (rule.match_regex) {
      const problem = SafeRegex.problemOf(rule.match_regex);
      if (problem) throw invalidField('match_regex', `match_regex ${problem}`);
    }
    if (rule.match_device_id && !(await this.devices.exists(accountId, rule.match_device_id))) {
      throw invalidField('match_device_id', 'match_device_id names no device of this account', 'device_not_found');
    }
    const need = (field: 'reply_text' | 'forward_to' | 'email_to', ok: boolean) => {
      if (!ok) throw invalidField(field, `${field} is required for a rule with action ${rule.action}`);
    };
    let forwardTo = rule.forward_to;
    if (rule.action === 'auto_reply') need('reply_text', Boolean(rule.reply_text));
    if (rule.action === 'forward_sms') {
      need('forward_to', Boolean(rule.forward_to));
      forwardTo = normalizePhone(rule.forward_to!, this.defaultPhoneRegion) ?? null;
      if (!forwardTo) throw invalidField('forward_to', 'forward_to must be a valid phone number', 'invalid_phone');
    }
    if (rule.action === 'forward_email') need('email_to', Boolean(rule.email_to));
    if (rule.action === 'tag' && rule.tags.length === 0) throw invalidField('tags', 'tags must hold at least one tag for a rule with action tag');
    return {
      name: rule.name,
      enabled: rule.enabled,
      match_keyword: rule.match_keyword || null,
      match_regex: rule.match_regex || null,
      match_sender: rule.match_sender || null,
      match_device_id: rule.match_device_id?.toLowerCase() || null,
      match_sim_slot: rule.match_sim_slot,
      action: rule.action,
      reply_text: rule.reply_text || null,
      forward_to: forwardTo || null,
      email_to: rule.email_to || null,
      tags: [...new Set(rule.tags)],
      stop_after: rule.stop_after,
    };
  }
}

/** The text as words: folded as keywords are, punctuation read as spaces ("Hours?" is HOURS). */
function words(text: string): string {
  return foldKeyword(text).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const EMPTY_RULE: Required<Omit<RuleFields, 'action'>> = {
  name: '',
  enabled: true,
  match_keyword: null,
  match_regex: null,
  match_sender: null,
  match_device_id: null,
  match_sim_slot: null,
  reply_text: null,
  forward_to: null,
  email_to: null,
  tags: [],
  stop_after: false,
};
