// Extended API v1: the account's canary rounds (docs/fleet-health.md): their settings, and a round
// run now.
import { settingsRoutes } from '../../../http/resource-routes.ts';
import { presentCanarySettings, presentRound } from '../../../modules/fleet-health/canary/presenter.ts';
import { CanaryRoundView, CanarySettingsPatch, CanarySettingsView } from '../../../modules/fleet-health/canary/schema.ts';
import type { CanaryService } from '../../../modules/fleet-health/canary/service.ts';

export function canaryRoutes(canary: CanaryService) {
  // Rounds send SMS from the account's phones: changing them takes what changing a device takes.
  const settings = settingsRoutes({
    tag: 'Fleet health',
    read: 'devices:read',
    write: 'devices:write',
    one: { description: 'the settings', schema: CanarySettingsView },
    present: presentCanarySettings,
  });
  return [
    settings.get({
      path: '/account/canary',
      operationId: 'getCanarySettings',
      summary: 'The account\'s canary rounds: whether they run, how often, how long a probe waits, and when the next one starts',
      read: ({ auth }) => canary.settings(auth.accountId),
    }),
    settings.update({
      path: '/account/canary',
      operationId: 'updateCanarySettings',
      summary: 'Switch the account\'s canary rounds on or off, or change how often they run and how long a probe waits',
      description:
        'In a round each eligible SIM (its number known, its device online with can_send_sms and forward_incoming_sms on) sends ' +
        'one SMS "Gateway check <code>" to another SIM of the account, partners rotating from round to round. A probe passes ' +
        'when the receiving phone reports the code within timeout_seconds, and fails at its deadline or when its SMS ends ' +
        'failed_send. Canary SMS are ordinary SMS of kind canary (they count against pacing), listed only with GET /sms?kind=canary, ' +
        'and in no webhook or conversation; the code received is not stored as a received SMS.',
      body: CanarySettingsPatch,
      answer: 'the settings now',
      errors: ['validation_failed'],
      update: ({ auth, body }) => canary.update(auth.accountId, body),
    }),
    settings.route({
      method: 'post',
      path: '/account/canary/run',
      operationId: 'runCanaryRound',
      summary: 'Run a canary round now, whether or not rounds are on',
      description:
        '202 with the round\'s probes (pending: read them again through the device health) and the SIMs left out with why. ' +
        '409 conflict when fewer than two SIMs are eligible; its message says what each left-out SIM lacks.',
      responses: { 202: { description: 'the round started', schema: CanaryRoundView } },
      errors: ['conflict'],
      async handle({ auth }) {
        return { status: 202, body: presentRound(await canary.runNow(auth.accountId)) };
      },
    }),
  ];
}
