import type { Static } from '@sinclair/typebox';
import type { ConversationSummary, ThreadEntry } from '../../use-cases/conversation-views.ts';
import type { ConversationView, ThreadMessageView } from './schema.ts';

export function presentThreadMessage(entry: ThreadEntry): Static<typeof ThreadMessageView> {
  return {
    id: entry.id,
    direction: entry.direction,
    ...(entry.kind ? { kind: entry.kind } : {}),
    message: entry.message,
    redacted: entry.redacted,
    status: entry.status,
    device_id: entry.device_id,
    sim_slot: entry.sim_slot,
    at: entry.created_at.toISOString(),
  };
}

export function presentConversation({ conversation, last, via }: ConversationSummary): Static<typeof ConversationView> {
  return {
    phone: conversation.phone,
    last_activity_at: conversation.last_activity_at.toISOString(),
    unread_count: conversation.unread_count,
    read_at: conversation.read_at?.toISOString() ?? null,
    last_message: last ? presentThreadMessage(last) : null,
    device_id: via?.device_id ?? null,
    sim_slot: via?.sim_slot ?? null,
  };
}
