// A USSD session as other modules (webhooks, events) see it.
export const USSD_STATUSES = ['pending', 'waiting_reply', 'completed', 'failed'] as const;
export type UssdStatus = (typeof USSD_STATUSES)[number];

/** Statuses a session ends in; nothing changes it afterwards. */
export const FINAL_USSD_STATUSES: readonly UssdStatus[] = ['completed', 'failed'];

export interface UssdExchange {
  /** Who said it: the client (the code dialled, a reply) or the network (a menu, the answer). */
  from: 'client' | 'network';
  text: string;
  /** ISO 8601. */
  at: string;
}

export interface UssdSessionRow {
  id: string;
  account_id: string;
  device_id: string;
  code: string;
  sim: number;
  status: UssdStatus;
  step: number;
  message: string | null;
  error: string | null;
  history: UssdExchange[];
  timeout_seconds: number;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}
