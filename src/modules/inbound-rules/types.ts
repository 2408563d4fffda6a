// Inbound rules as other modules see them.
export const RULE_ACTIONS = ['auto_reply', 'forward_sms', 'forward_email', 'tag'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export interface InboundRuleRow {
  id: string;
  account_id: string;
  /** 0-based; rules are tried in this order. */
  position: number;
  name: string;
  enabled: boolean;
  /** Matches when the text (case, accents and punctuation folded) is this word or phrase, or starts with it. */
  match_keyword: string | null;
  /** A regular expression (JavaScript syntax, case-insensitive), run with a time limit. */
  match_regex: string | null;
  /** Matches SMS from this number (E.164, or as the phone reported a short code or name). */
  match_sender: string | null;
  match_device_id: string | null;
  match_sim_slot: number | null;
  action: RuleAction;
  reply_text: string | null;
  forward_to: string | null;
  email_to: string | null;
  tags: string[];
  /** No later rule is tried once this one matched. */
  stop_after: boolean;
  hits: string | number;
  regex_timeouts: string | number;
  last_hit_at: Date | null;
  last_timeout_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A received SMS as the rules see it. */
export interface RuleInput {
  phone: string;
  message: string;
  device_id: string | null;
  sim_slot: number | null;
}

/** What a rule did with one SMS, for a dry run and for the one who carries the actions out. */
export interface RuleOutcome {
  rule: InboundRuleRow;
  matched: boolean;
  /** The regular expression ran out of time: the rule did not match, and the time-out was counted. */
  timedOut: boolean;
}
