// The upstreams module's records: an account's providers and its routes.
import type { SmsCategory } from '../messages/category.ts';

export type UpstreamKind = 'smpp' | 'twilio';

/** An SMSC the gateway binds to as an ESME. */
export interface SmppUpstreamSettings {
  host: string;
  port: number;
  tls: boolean;
  system_id: string;
  system_type: string;
  bind_mode: 'transceiver' | 'transmitter_receiver';
  source_addr: string;
  throughput_per_second: number;
  window_size: number;
  enquire_link_seconds: number;
}

/** A service speaking Twilio's Messages API. */
export interface TwilioUpstreamSettings {
  base_url: string;
  account_sid: string;
  from: string | null;
  messaging_service_sid: string | null;
  max_concurrent: number;
  throughput_per_second: number;
}

export interface PrefixPrice {
  /** The destination starts with it: "+44", "+4477". */
  prefix: string;
  price: number;
}

export interface UpstreamRow {
  id: string;
  account_id: string;
  name: string;
  kind: UpstreamKind;
  settings: SmppUpstreamSettings | TwilioUpstreamSettings;
  secret_encrypted: string;
  enabled: boolean;
  /** numeric columns arrive as strings; the presenter turns them into numbers. */
  price_per_segment: string | number | null;
  prefix_prices: PrefixPrice[];
  monthly_budget: string | number | null;
  created_at: Date;
  updated_at: Date;
}

/** An upstream with this month's figures. */
export interface UpstreamWithUsage extends UpstreamRow {
  month_segments: number;
  month_spent: string | number;
}

/**
 * One rule of an account's routes. `target` is "phones" (the account's phones), "group:<name>"
 * (the phones of that device group) or an upstream's id. A rule applies to an SMS when each condition it has holds; an SMS goes through the rules
 * that apply to it, in order, until one carries it.
 */
export interface RouteRule {
  target: string;
  /** The destination starts with one of these ("+44", "+1"); any destination when absent. */
  prefixes?: string[];
  /** The SMS's priority is at least this (e.g. one-time codes sent with priority 50); any when absent. */
  min_priority?: number;
  /** The SMS was sent with one of these categories (an SMS without one matches none); any SMS when absent. */
  categories?: SmsCategory[];
  /** Phones and groups only: how long the phones have to take the SMS before the next rule. Forever when absent. */
  after_seconds?: number;
  /** Phones and groups only: move on at once when no phone of the account (of the group) is online. On when absent. */
  skip_when_offline?: boolean;
}
