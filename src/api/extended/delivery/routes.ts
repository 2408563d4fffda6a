// Extended API v1: an SMS's send attempts (docs/delivery.md, "Retrying failed sends"), and the
// account's delivery choices (sticky sender).
import type { Static } from '@sinclair/typebox';
import { AppError } from '../../../common/errors.ts';
import { defineRoute } from '../../../http/route.ts';
import { settingsRoutes } from '../../../http/resource-routes.ts';
import type { TaskService } from '../../../modules/delivery/task-service.ts';
import type { AttemptRow } from '../../../modules/delivery/attempts.ts';
import { DeliverySettingsPatch, DeliverySettingsView, SmsAttempts, SmsAttemptsParams, type SmsAttempt } from '../../../modules/delivery/schema.ts';

export function deliveryRoutes(tasks: TaskService) {
  // How the account's SMS are spread over its devices: the permission device settings take.
  const settings = settingsRoutes({
    tag: 'Devices',
    read: 'devices:read',
    write: 'devices:settings',
    one: { description: 'the account\'s delivery choices', schema: DeliverySettingsView },
    present: (row: Static<typeof DeliverySettingsView>) => row,
  });
  return [
    settings.get({
      path: '/account/delivery',
      operationId: 'getDeliverySettings',
      summary: 'How the account\'s SMS are spread over its devices (sticky sender)',
      read: ({ auth }) => tasks.deliverySettings(auth.accountId),
    }),
    settings.update({
      path: '/account/delivery',
      operationId: 'updateDeliverySettings',
      summary: 'Keep each recipient on the SIM it last got an SMS from (sticky_sender), or not',
      description:
        'With sticky_sender a pool SMS waits for the device holding the SIM its recipient last got an SMS from, and that ' +
        'device names the SIM, while the SIM can send; otherwise it goes to any device as before. Fields left out stay.',
      body: DeliverySettingsPatch,
      errors: ['validation_failed'],
      update: ({ auth, body }) => tasks.updateDeliverySettings(auth.accountId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/sms/:id/attempts',
      operationId: 'listSmsAttempts',
      summary: 'Read the send attempts of an SMS: which device and SIM tried it, when, and how it ended',
      description:
        'A send that a phone reports failed with a retryable error_code is tried again, on another SIM of the phone or ' +
        'another phone, up to the device\'s max_send_attempts; meanwhile the SMS stays pending. Each attempt is listed ' +
        'here, first first. An SMS no phone has taken yet has none.',
      tag: 'SMS',
      permission: 'sms:read',
      params: SmsAttemptsParams,
      responses: { 200: { description: 'the attempts, first first', schema: SmsAttempts } },
      errors: ['invalid_id', 'sms_not_found'],
      async handle({ auth, params }) {
        const attempts = await tasks.attemptsOf(auth.accountId, params.id);
        if (!attempts) throw new AppError('sms_not_found');
        return { status: 200, body: { data: attempts.map(presentAttempt) } };
      },
    }),
  ];
}

function presentAttempt(row: AttemptRow): Static<typeof SmsAttempt> {
  return {
    attempt: Number(row.attempt),
    device_id: row.device_id,
    upstream_id: row.upstream_id,
    sim_slot: row.sim_slot === null ? null : Number(row.sim_slot),
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
    result: row.result,
    error_code: row.error_code,
    error: row.error,
    retried: row.retried,
  };
}
