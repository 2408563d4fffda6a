// Extended API v1: the account's inbound rules (tried in order on every received SMS), their
// order, a dry run on a sample SMS, and the tags rules put on received SMS.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentDryRun, presentRule } from '../../../modules/inbound-rules/presenter.ts';
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
} from '../../../modules/inbound-rules/schema.ts';
import type { InboundRuleService } from '../../../modules/inbound-rules/service.ts';

export function inboundRuleRoutes(rules: InboundRuleService) {
  const rule = resourceRoutes({
    tag: 'Inbound rules',
    read: 'inbound_rules:read',
    write: 'inbound_rules:write',
    params: RuleIdParams,
    missing: ['inbound_rule_not_found'],
    one: { description: 'the rule', schema: RuleView },
    present: presentRule,
  });
  return [
    rule.listAll({
      path: '/inbound-rules',
      operationId: 'listInboundRules',
      summary: 'The account\'s inbound rules, in the order they are tried, with their hit counts',
      answer: { description: 'every rule', schema: RuleList },
      list: ({ auth }) => rules.list(auth.accountId),
    }),
    rule.create({
      path: '/inbound-rules',
      operationId: 'createInboundRule',
      summary: 'Add an inbound rule after the others',
      description:
        'Every condition given (match_keyword, match_regex, match_sender, match_device_id, match_sim_slot) must hold; a rule with none matches every SMS. ' +
        'The action needs its field: auto_reply reply_text, forward_sms forward_to, forward_email email_to, tag tags (docs/inbound-rules.md).',
      body: CreateRuleBody,
      errors: ['invalid_phone', 'device_not_found'],
      create: ({ auth, body }) => rules.create(auth.accountId, body),
    }),
    rule.route({
      method: 'put',
      path: '/inbound-rules/order',
      operationId: 'reorderInboundRules',
      summary: 'Put the rules in a new order',
      body: ReorderBody,
      responses: { 200: { description: 'every rule, in the new order', schema: RuleList } },
      async handle({ auth, body }) {
        return { status: 200, body: { data: (await rules.reorder(auth.accountId, body.ids)).map(presentRule) } };
      },
    }),
    rule.route({
      method: 'post',
      path: '/inbound-rules/dry-run',
      operationId: 'dryRunInboundRules',
      summary: 'Try the rules on a sample SMS: what each makes of it; nothing is counted, sent or stored',
      // A dry run changes nothing: reading the rules is enough.
      permission: 'inbound_rules:read',
      body: DryRunBody,
      responses: { 200: { description: 'each rule\'s verdict', schema: DryRunResult } },
      async handle({ auth, body }) {
        const outcomes = await rules.dryRun(auth.accountId, { phone: body.phone, message: body.message, device_id: body.device_id ?? null, sim_slot: body.sim_slot ?? null });
        return { status: 200, body: presentDryRun(outcomes) };
      },
    }),
    rule.get({
      path: '/inbound-rules/:id',
      operationId: 'getInboundRule',
      summary: 'One inbound rule',
      read: ({ auth, params }) => rules.get(auth.accountId, params.id),
    }),
    rule.update({
      path: '/inbound-rules/:id',
      operationId: 'updateInboundRule',
      summary: 'Change an inbound rule; fields not sent stay as they are',
      body: UpdateRuleBody,
      errors: ['invalid_phone', 'device_not_found'],
      update: ({ auth, params, body }) => rules.update(auth.accountId, params.id, body),
    }),
    rule.remove({
      path: '/inbound-rules/:id',
      operationId: 'deleteInboundRule',
      summary: 'Delete an inbound rule',
      remove: ({ auth, params }) => rules.delete(auth.accountId, params.id),
    }),
    rule.route({
      method: 'get',
      path: '/incoming/:id/tags',
      operationId: 'getIncomingSmsTags',
      summary: 'The tags inbound rules put on a received SMS',
      // The tags belong to the received SMS: whoever may read it may read them.
      permission: 'sms:read',
      params: IncomingTagsParams,
      errors: ['sms_not_found'],
      responses: { 200: { description: 'its tags, sorted (none: an empty list)', schema: IncomingTags } },
      async handle({ auth, params }) {
        return { status: 200, body: { tags: await rules.tagsOf(auth.accountId, params.id) } };
      },
    }),
  ];
}
