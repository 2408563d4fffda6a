// Reading conversations: the conversations module knows who talked with whom and when; the
// messages, incoming and MMS modules hold what was said (a received MMS counts as a received
// message, read by its text). A list reads a page of conversations, then their newest message
// each way by id (three queries for the page, whatever its size); a thread reads each source by
// number, newest first, and merges them. Also which phone and SIM a reply should go through:
// those of the newest message that has a device.
import type { ConversationService } from '../modules/conversations/service.ts';
import type { ConversationRow } from '../modules/conversations/types.ts';
import type { IncomingService } from '../modules/incoming/service.ts';
import type { IncomingSmsRow } from '../modules/incoming/types.ts';
import type { MmsService } from '../modules/mms/service.ts';
import type { IncomingMmsRow } from '../modules/mms/types.ts';
import type { MessageService } from '../modules/messages/service.ts';
import type { SmsRecord, SmsWithDevice } from '../modules/messages/types.ts';
import { toExtendedStatus, type ExtendedStatus } from '../modules/messages/status.ts';
import type { Cursor } from '../storage/paging.ts';

export interface ConversationParts {
  conversations: ConversationService;
  messages: MessageService;
  incoming: IncomingService;
  mms: Pick<MmsService, 'listFromNumber' | 'findManyIncoming'>;
}

/** One message of a thread, either way. */
export interface ThreadEntry {
  id: string;
  direction: 'outgoing' | 'incoming';
  /** "mms" for an MMS either way, "data" for a data SMS (no text: a payload to a port); absent for a text SMS. */
  kind?: 'mms' | 'data';
  phone: string;
  /** "" once redacted. */
  message: string;
  redacted: boolean;
  /** Outgoing only: the Extended status; null for a received SMS. */
  status: ExtendedStatus | null;
  device_id: string | null;
  sim_slot: number | null;
  created_at: Date;
}

export interface ConversationSummary {
  conversation: ConversationRow;
  last: ThreadEntry | null;
  /** The phone and SIM a reply should go through; null when no message of it has a device yet. */
  via: { device_id: string; sim_slot: number | null } | null;
}

type MaybeRedacted = { redacted_at?: Date | null };

function outgoingEntry(sms: SmsRecord & Partial<Pick<SmsWithDevice, 'sent_sim_slot'>>): ThreadEntry {
  return {
    id: sms.id,
    direction: 'outgoing',
    ...(sms.kind === 'mms' || sms.kind === 'data' ? { kind: sms.kind } : {}),
    phone: sms.phone,
    message: sms.message,
    redacted: Boolean((sms as MaybeRedacted).redacted_at),
    status: toExtendedStatus(sms.status),
    device_id: sms.device_id,
    // The slot the phone reported sending from; else the one asked for, when it names a slot.
    sim_slot: sms.sent_sim_slot ?? (sms.sim_slot !== null && sms.sim_slot >= 0 ? sms.sim_slot : null),
    created_at: sms.created_at,
  };
}

function incomingEntry(sms: IncomingSmsRow): ThreadEntry {
  return {
    id: sms.id,
    direction: 'incoming',
    phone: sms.phone,
    message: sms.message,
    redacted: Boolean((sms as MaybeRedacted).redacted_at),
    status: null,
    device_id: sms.device_id,
    sim_slot: sms.sim_slot,
    created_at: sms.created_at,
  };
}

/** A received MMS reads as its text, else its subject. */
function incomingMmsEntry(mms: IncomingMmsRow): ThreadEntry {
  return {
    id: mms.id,
    direction: 'incoming',
    kind: 'mms',
    phone: mms.phone,
    message: mms.message ?? mms.subject ?? '',
    redacted: Boolean((mms as MaybeRedacted).redacted_at),
    status: null,
    device_id: mms.device_id,
    sim_slot: mms.sim_slot,
    created_at: mms.created_at,
  };
}

const newestFirst = (a: ThreadEntry, b: ThreadEntry) => b.created_at.getTime() - a.created_at.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);

/** A page of the account's conversations, newest activity first (one row more than `limit` when there is a next page). */
export async function listConversations(
  parts: ConversationParts,
  accountId: string,
  limit: number,
  cursor?: Cursor,
  unreadOnly = false,
): Promise<ConversationSummary[]> {
  const rows = await parts.conversations.list(accountId, limit, cursor, unreadOnly);
  return summarize(parts, accountId, rows);
}

/** One conversation, by number. */
export async function getConversation(parts: ConversationParts, accountId: string, phone: string): Promise<ConversationSummary> {
  const [summary] = await summarize(parts, accountId, [await parts.conversations.get(accountId, phone)]);
  return summary!;
}

async function summarize(parts: ConversationParts, accountId: string, rows: ConversationRow[]): Promise<ConversationSummary[]> {
  const lastIncoming = rows.flatMap((row) => (row.last_incoming_id ? [row.last_incoming_id] : []));
  const [sent, received, receivedMms] = await Promise.all([
    parts.messages.findManyWithDevice(accountId, rows.flatMap((row) => (row.last_sms_id ? [row.last_sms_id] : []))),
    parts.incoming.findMany(accountId, lastIncoming),
    // The newest received message is an SMS or an MMS: the id says which by where it is found.
    parts.mms.findManyIncoming(accountId, lastIncoming),
  ]);
  const sentById = new Map(sent.map((sms) => [sms.id, outgoingEntry(sms)]));
  const receivedById = new Map([...received.map((sms) => [sms.id, incomingEntry(sms)] as const), ...receivedMms.map((mms) => [mms.id, incomingMmsEntry(mms)] as const)]);
  return rows.map((conversation) => {
    const both = [
      conversation.last_sms_id ? sentById.get(conversation.last_sms_id) : undefined,
      conversation.last_incoming_id ? receivedById.get(conversation.last_incoming_id) : undefined,
    ]
      .filter((entry): entry is ThreadEntry => entry !== undefined)
      .sort(newestFirst);
    const withDevice = both.find((entry) => entry.device_id !== null);
    return {
      conversation,
      last: both[0] ?? null,
      via: withDevice ? { device_id: withDevice.device_id!, sim_slot: withDevice.sim_slot } : null,
    };
  });
}

/**
 * The messages of one conversation both ways, newest first, `limit` + 1 at most (the extra one
 * says there is a next page). Each direction is read newest first from the cursor on through its
 * index by number; the merge keeps the newest.
 */
export async function conversationThread(parts: ConversationParts, accountId: string, phone: string, limit: number, cursor?: Cursor): Promise<ThreadEntry[]> {
  const conversation = await parts.conversations.get(accountId, phone);
  const [sent, received, receivedMms] = await Promise.all([
    parts.messages.listToNumber(accountId, conversation.phone, limit, cursor),
    parts.incoming.listFromNumber(accountId, conversation.phone, limit, cursor),
    parts.mms.listFromNumber(accountId, conversation.phone, limit, cursor),
  ]);
  return [...sent.map(outgoingEntry), ...received.map(incomingEntry), ...receivedMms.map(incomingMmsEntry)].sort(newestFirst).slice(0, limit + 1);
}
