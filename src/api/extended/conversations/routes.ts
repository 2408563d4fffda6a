// Extended API v1: the account's conversations, one per remote number, both ways.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { decodeCursor, pageBy } from '../../../http/pagination.ts';
import { conversationThread, getConversation, listConversations, type ConversationParts } from '../../../use-cases/conversation-views.ts';
import { presentConversation, presentThreadMessage } from '../../../modules/conversations/presenter.ts';
import { ConversationList, ConversationListQuery, ConversationPhoneParams, ConversationView, ThreadPage, ThreadQuery } from '../../../modules/conversations/schema.ts';

export function conversationRoutes(parts: ConversationParts) {
  // Marking a conversation read changes no message and sends nothing: every route here, that one
  // too, takes sms:read.
  const conversation = resourceRoutes({
    tag: 'Conversations',
    read: 'sms:read',
    write: 'sms:read',
    params: ConversationPhoneParams,
    missing: ['conversation_not_found'],
    one: { description: 'the conversation', schema: ConversationView },
    present: presentConversation,
  });
  return [
    conversation.route({
      method: 'get',
      path: '/conversations',
      operationId: 'listConversations',
      summary: 'List the account\'s conversations, one per remote number, newest activity first',
      description:
        'A conversation starts with the first SMS sent to or received from a number. Each shows its newest message either way, ' +
        'how many received SMS are unread, and the phone and SIM a reply should go through. A conversation that moves while ' +
        'a client pages may show again on a later page.',
      query: ConversationListQuery,
      responses: { 200: { description: 'a page of conversations', schema: ConversationList } },
      async handle({ auth, query }) {
        const rows = await listConversations(parts, auth.accountId, query.limit, decodeCursor(query.cursor), query.unread ?? false);
        // Conversations page by last activity: the cursor holds the last_activity_at and id of the last one.
        const { rows: kept, nextCursor } = pageBy(rows, query.limit, ({ conversation }) => ({ created_at: conversation.last_activity_at, id: conversation.id }));
        return { status: 200, body: { data: kept.map(presentConversation), next_cursor: nextCursor } };
      },
    }),
    conversation.get({
      path: '/conversations/:phone',
      operationId: 'getConversation',
      summary: 'Read one conversation by its remote number',
      read: ({ auth, params }) => getConversation(parts, auth.accountId, params.phone),
    }),
    conversation.list({
      path: '/conversations/:phone/messages',
      operationId: 'listConversationMessages',
      summary: 'The SMS sent to and received from one number, merged, newest first',
      params: ConversationPhoneParams,
      query: ThreadQuery,
      answer: { description: 'a page of the thread', schema: ThreadPage },
      errors: ['conversation_not_found'],
      list: ({ auth, params, query }, cursor) => conversationThread(parts, auth.accountId, params.phone, query.limit, cursor),
      present: presentThreadMessage,
    }),
    conversation.act({
      method: 'post',
      path: '/conversations/:phone/read',
      operationId: 'markConversationRead',
      summary: 'Mark a conversation read: its unread count goes back to 0',
      answer: 'the conversation, read',
      async act({ auth, params }) {
        await parts.conversations.markRead(auth.accountId, params.phone);
        return getConversation(parts, auth.accountId, params.phone);
      },
    }),
  ];
}
