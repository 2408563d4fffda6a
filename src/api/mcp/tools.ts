// The tools an AI assistant sees. Each one is a thin call of the Extended API through
// GatewayApiClient, so whatever the key may not do, the tool may not do either: the API's 403
// comes back as a tool error naming the missing permission. Every result carries a short text
// for the conversation and the API's own JSON as structured content.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PACKAGE_VERSION } from '../../common/package-info.ts';
import { EXTENDED_STATUSES } from '../../modules/messages/status.ts';
import { GatewayApiError, type GatewayApiClient } from './gateway-client.ts';
import * as text from './summaries.ts';

const uuid = () => z.string().uuid();
const limit = z.number().int().min(1).max(100).optional().describe('rows per page, 1-100 (default 50)');
const cursor = z.string().max(200).optional().describe('next_cursor of the previous page, to read the next one');

const sendOptions = {
  message: z.string().min(1).describe('the text, at most 170 characters'),
  device_id: uuid().optional().describe('send through this device (see list_devices); omitted: the gateway chooses an online one'),
  sim_slot: z
    .number()
    .int()
    .min(-2)
    .max(2)
    .optional()
    .describe('SIM slot to send from, 0-2 (-1 random, -2 the phone\'s default); meaningful with device_id on a multi-SIM phone'),
  send_at: z.string().optional().describe('ISO 8601 time: not sent before then (at most a year ahead)'),
  valid_until: z.string().optional().describe('ISO 8601 time: if no phone took it by then it fails with reason "expired"'),
  ttl: z.number().int().min(1).max(31_536_000).optional().describe('seconds from now, instead of valid_until'),
  priority: z.number().int().min(-100).max(100).optional().describe('higher goes first (default 0)'),
  callback_id: z.string().max(64).optional().describe('id of the webhook that gets this SMS\'s events; omitted: every webhook with SMS events'),
};

export function createMcpServer(api: GatewayApiClient): McpServer {
  const server = new McpServer({ name: 'sms-gateway', version: PACKAGE_VERSION });

  server.registerTool(
    'send_sms',
    {
      title: 'Send an SMS',
      description:
        'Send a text message from one of the account\'s Android phones. Give `phone` for one recipient or `phones` for several ' +
        '(the same text to each, up to 1000). Numbers in international format such as +4915112345678. The SMS is queued: ' +
        'it starts as pending; follow it with get_sms. Needs the sms:send permission.',
      inputSchema: {
        phone: z.string().min(1).max(64).optional().describe('one recipient, international format such as +4915112345678'),
        phones: z.array(z.string().min(1).max(64)).min(1).max(1000).optional().describe('several recipients, each gets the same message'),
        ...sendOptions,
      },
    },
    ({ phone, phones, ...options }) =>
      run(async () => {
        if ((phone === undefined) === (phones === undefined)) return usageError('give exactly one of phone (one recipient) or phones (several)');
        const created: any[] =
          phone !== undefined
            ? [await api.post('/sms', { phone, ...options })]
            : (await api.post<{ data: any[] }>('/sms/bulk', { messages: phones!.map((to) => ({ phone: to, ...options })) })).data;
        return ok(text.sent(created), phone !== undefined ? created[0] : { data: created });
      }),
  );

  server.registerTool(
    'list_sms',
    {
      title: 'List sent SMS',
      description:
        'The account\'s outgoing SMS, newest first, with their status (pending, sent, delivered, undelivered, failed_send, ' +
        'failed_delivery). Filters combine; pass next_cursor back as cursor for the next page. Needs sms:read.',
      inputSchema: {
        status: z.enum(EXTENDED_STATUSES).optional().describe('only SMS in this status'),
        phone: z.string().min(1).max(64).optional().describe('only SMS to this recipient'),
        device_id: uuid().optional().describe('only SMS sent through this device'),
        search: z.string().max(100).optional().describe('case-insensitive substring of the text, the phone or the status'),
        from: z.string().optional().describe('ISO 8601: created at or after'),
        to: z.string().optional().describe('ISO 8601: created before'),
        limit,
        cursor,
      },
    },
    (query) => run(async () => listed(await api.get('/sms', query), text.smsLine, 'SMS')),
  );

  server.registerTool(
    'get_sms',
    {
      title: 'Get one SMS',
      description: 'One outgoing SMS by id, with its status and its status history (when it was sent, delivered or why it failed). Needs sms:read.',
      inputSchema: { id: uuid().describe('the SMS id, as send_sms or list_sms gave it') },
    },
    ({ id }) =>
      run(async () => {
        const sms = await api.get<any>(`/sms/${encodeURIComponent(id)}`);
        return ok(text.smsDetail(sms), sms);
      }),
  );

  server.registerTool(
    'cancel_sms',
    {
      title: 'Cancel an SMS',
      description:
        'Cancel an SMS no phone has taken yet: it ends as failed_send with reason "cancelled". Refused once a phone has ' +
        'taken it or it has ended otherwise. Needs sms:send.',
      inputSchema: { id: uuid().describe('the SMS id') },
    },
    ({ id }) =>
      run(async () => {
        const sms = await api.post<any>(`/sms/${encodeURIComponent(id)}/cancel`);
        return ok(`Cancelled: ${text.smsLine(sms)}`, sms);
      }),
  );

  server.registerTool(
    'list_devices',
    {
      title: 'List devices',
      description:
        'The account\'s phones that send and receive SMS, with their state: online or not, battery, signal, paused by the ' +
        'circuit breaker, whether they may send. Use a device\'s id as send_sms\'s device_id. Needs devices:read.',
      inputSchema: { limit, cursor },
    },
    (query) => run(async () => listed(await api.get('/devices', query), text.deviceLine, 'devices')),
  );

  server.registerTool(
    'list_incoming',
    {
      title: 'List received SMS',
      description: 'SMS the account\'s phones received, newest first. Needs sms:read.',
      inputSchema: { device_id: uuid().optional().describe('only SMS received by this device'), limit, cursor },
    },
    (query) => run(async () => listed(await api.get('/incoming', query), text.incomingLine, 'received SMS')),
  );

  server.registerTool(
    'list_conversations',
    {
      title: 'List conversations',
      description:
        'One entry per remote number the account exchanged SMS with (sent or received), most recent first, with the last ' +
        'message and the unread count. Read one with get_conversation. Needs sms:read.',
      inputSchema: { unread: z.boolean().optional().describe('true: only conversations with unread received SMS'), limit, cursor },
    },
    (query) => run(async () => listed(await api.get('/conversations', query), text.conversationLine, 'conversations')),
  );

  server.registerTool(
    'get_conversation',
    {
      title: 'Read a conversation',
      description: 'The messages exchanged with one number, both directions, newest first. Needs sms:read.',
      inputSchema: {
        phone: z.string().min(1).max(80).describe('the remote number as list_conversations shows it, such as +4915112345678'),
        limit,
        cursor,
      },
    },
    ({ phone, ...query }) =>
      run(async () => listed(await api.get(`/conversations/${encodeURIComponent(phone)}/messages`, query), text.threadLine, 'messages')),
  );

  return server;
}

function ok(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: summary }], structuredContent: structured };
}

function usageError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: { code: 'invalid_arguments', message } } };
}

function listed(page: any, line: (row: any) => string, what: string): CallToolResult {
  const rows: any[] = page.data ?? [];
  const more = page.next_cursor ? `\nMore: pass cursor "${page.next_cursor}" for the next page.` : '';
  const body = rows.length === 0 ? `No ${what}.` : `${rows.length} ${what}:\n${rows.map((row) => `- ${line(row)}`).join('\n')}`;
  return ok(body + more, page);
}

/** Runs a tool's call; what the API refuses becomes an error result the assistant can read and act on. */
async function run(call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof GatewayApiError)) throw error;
    const permission = error.status === 403 ? /the (\S+:\S+) permission/.exec(error.message)?.[1] : undefined;
    const summary = permission
      ? `Permission denied: the API key lacks the ${permission} permission (ask for a key that has it).`
      : `The gateway refused (${error.status} ${error.code}): ${error.message}`;
    return {
      isError: true,
      content: [{ type: 'text', text: summary }],
      structuredContent: { error: { status: error.status, code: error.code, message: error.message, ...(permission ? { missing_permission: permission } : {}) } },
    };
  }
}
