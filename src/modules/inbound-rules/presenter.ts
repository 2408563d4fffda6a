import type { Static } from '@sinclair/typebox';
import type { InboundRuleRow, RuleOutcome } from './types.ts';
import type { DryRunResult, RuleView } from './schema.ts';

export function presentRule(rule: InboundRuleRow): Static<typeof RuleView> {
  return {
    id: rule.id,
    position: rule.position,
    name: rule.name,
    enabled: rule.enabled,
    match_keyword: rule.match_keyword,
    match_regex: rule.match_regex,
    match_sender: rule.match_sender,
    match_device_id: rule.match_device_id,
    match_sim_slot: rule.match_sim_slot,
    action: rule.action,
    reply_text: rule.reply_text,
    forward_to: rule.forward_to,
    email_to: rule.email_to,
    tags: rule.tags,
    stop_after: rule.stop_after,
    hits: Number(rule.hits),
    regex_timeouts: Number(rule.regex_timeouts),
    last_hit_at: rule.last_hit_at?.toISOString() ?? null,
    last_timeout_at: rule.last_timeout_at?.toISOString() ?? null,
    created_at: rule.created_at.toISOString(),
    updated_at: rule.updated_at.toISOString(),
  };
}

export function presentDryRun(outcomes: RuleOutcome[]): Static<typeof DryRunResult> {
  return {
    data: outcomes.map(({ rule, matched, timedOut }) => ({ rule_id: rule.id, name: rule.name, action: rule.action, matched, timed_out: timedOut })),
    actions: outcomes.filter((outcome) => outcome.matched).map((outcome) => outcome.rule.id),
  };
}
