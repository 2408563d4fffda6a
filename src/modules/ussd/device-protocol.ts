// What the gateway and a phone say to each other about USSD (docs/asyncapi.yaml: UssdRequest on
// the `ussd` topic, UssdReport on `ussd_status`). The broker validates reports with the schema
// below; the service builds the requests.
import { Type, type Static } from '@sinclair/typebox';

/** Gateway -> phone. `step` numbers the requests of a session: dial 0, each reply one more. */
export type UssdRequest =
  | { session_id: string; step: 0; action: 'dial'; code: string; sim: number; expires_at: string }
  | { session_id: string; step: number; action: 'reply'; text: string; expires_at: string }
  | { session_id: string; step: number; action: 'cancel'; reason: string };

/** The most steps a session may take: a menu tree deeper than this is a loop. */
export const MAX_USSD_STEP = 50;

const SessionId = Type.String({ format: 'uuid', description: 'the session the gateway named in its request' });
const Step = Type.Integer({ minimum: 0, maximum: MAX_USSD_STEP, description: 'the step of the request this answers' });
const NetworkText = Type.String({ maxLength: 2000, description: 'the network\'s text, as the phone shows it' });

/** Phone -> gateway: the network's answer to a step, or why there is none. */
export const UssdReport = Type.Union([
  Type.Object(
    { session_id: SessionId, step: Step, status: Type.Literal('waiting_reply'), message: NetworkText },
    { additionalProperties: false },
  ),
  Type.Object(
    { session_id: SessionId, step: Step, status: Type.Literal('completed'), message: NetworkText },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      session_id: SessionId,
      step: Step,
      status: Type.Literal('failed'),
      error: Type.String({ minLength: 1, maxLength: 500, description: 'why: the network refused the code, no network, the SIM is absent, ...' }),
      message: Type.Optional(NetworkText),
    },
    { additionalProperties: false },
  ),
]);

export type UssdReport = Static<typeof UssdReport>;

/** What became of a report: applied, a repeat that changed nothing, an answer after the session ended, of an earlier step, or of no session of this phone. */
export type UssdReportOutcome = 'applied' | 'unchanged' | 'late' | 'stale' | 'unknown';
