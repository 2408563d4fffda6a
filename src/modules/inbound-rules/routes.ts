// Extended API v1: the account's inbound rules (tried in order on every received SMS), their
// order, a dry run on a sample SMS, and the tags rules put on received SMS.
import { defineRoute } from '../../http/route.ts';
import { createOneRoute, deleteOneRoute, listAllRoute, readOneRoute, updateOneRoute } from '../../http/resource-routes.ts';
import { presentDryRun, presentRule } from './presenter.ts';
import {
  CreateRuleBody,
  DryRunBody,
  DryRunResult,
  IncomingTags,
  IncomingTagsParams,
  ReorderBody,
  RuleIdParams,
  RuleList,
  RuleView,
  UpdateRuleBody,
} from './schema.ts';
import type { InboundRuleService } from './service.ts';

const TAG = 'Inbound rules';

export function inboundRuleRoutes(rules: InboundRuleService) {
  return [
    listAllRoute({
      path: '/inbound-rules',
      operationId: 'listInboundRules',
      summary: 'The account\'s inbound rules, in the order they are tried, with their hit counts',
      tag: TAG,
      permission: 'inbound_rules:read',
      answer: { description: 'every rule', schema: RuleList },
      list: ({ auth }) => rules.list(auth.accountId),
      present: presentRule,
    }),
    createOneRoute({
      path: '/inbound-rules',
      operationId: 'createInboundRule',
      summary: 'Add an inbound rule after the others',
      description:
        'Every condition given (match_keyword, match_regex, match_sender, match_device_id, match_sim_slot) must hold; a rule with none matches every SMS. ' +
        'The action needs its field: auto_reply reply_text, forward_sms forward_to, forward_email email_to, tag tags (docs/inbound-rules.md).',
      tag: TAG,
      permission: 'inbound_rules:write',
      body: CreateRuleBody,
      answer: { description: 'the rule', schema: RuleView },
      errors: ['invalid_phone', 'device_not_found'],
      create: async ({ auth, body }) => presentRule(await rules.create(auth.accountId, body)),
    }),
    defineRoute({
      method: 'put',
      path: '/inbound-rules/order',
      operationId: 'reorderInboundRules',
      summary: 'Put the rules in a new order',
      tag: TAG,
      permission: 'inbound_rules:write',
      body: ReorderBody,
      responses: { 200: { description: 'every rule, in the new order', schema: RuleList } },
      async handle({ auth, body }) {
        return { status: 200, body: { data: (await rules.reorder(auth.accountId, body.ids)).map(presentRule) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/inbound-rules/dry-run',
      operationId: 'dryRunInboundRules',
      summary: 'Try the rules on a sample SMS: what each makes of it; nothing is counted, sent or stored',
      tag: TAG,
      permission: 'inbound_rules:read',
      body: DryRunBody,
      responses: { 200: { description: 'each rule\'s verdict', schema: DryRunResult } },
      async handle({ auth, body }) {
        const outcomes = await rules.dryRun(auth.accountId, { phone: body.phone, message: body.message, device_id: body.device_id ?? null, sim_slot: body.sim_slot ?? null });
        return { status: 200, body: presentDryRun(outcomes) };
      },
    }),
    readOneRoute({
      path: '/inbound-rules/:id',
      operationId: 'getInboundRule',
      summary: 'One inbound rule',
      tag: TAG,
      permission: 'inbound_rules:read',
      params: RuleIdParams,
      answer: { description: 'the rule', schema: RuleView },
      errors: ['inbound_rule_not_found'],
      read: async ({ auth, params }) => presentRule(await rules.get(auth.accountId, params.id)),
    }),
    updateOneRoute({
      path: '/inbound-rules/:id',
      operationId: 'updateInboundRule',
      summary: 'Change an inbound rule; fields not sent stay as they are',
      tag: TAG,
      permission: 'inbound_rules:write',
      params: RuleIdParams,
      body: UpdateRuleBody,
      answer: { description: 'the rule', schema: RuleView },
      errors: ['inbound_rule_not_found', 'invalid_phone', 'device_not_found'],
      update: async ({ auth, params, body }) => presentRule(await rules.update(auth.accountId, params.id, body)),
    }),
    deleteOneRoute({
      path: '/inbound-rules/:id',
      operationId: 'deleteInboundRule',
      summary: 'Delete an inbound rule',
      tag: TAG,
      permission: 'inbound_rules:write',
      params: RuleIdParams,
      errors: ['inbound_rule_not_found'],
      remove: ({ auth, params }) => rules.delete(auth.accountId, params.id),
    }),
    readOneRoute({
      path: '/incoming/:id/tags',
      operationId: 'getIncomingSmsTags',
      summary: 'The tags inbound rules put on a received SMS',
      tag: TAG,
      permission: 'sms:read',
      params: IncomingTagsParams,
      answer: { description: 'its tags, sorted (none: an empty list)', schema: IncomingTags },
      read: async ({ auth, params }) => ({ tags: await rules.tagsOf(auth.accountId, params.id) }),
    }),
  ];
}
