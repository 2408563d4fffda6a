import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { USSD_STATUSES } from './types.ts';

/** Bounds of a session's wait for each answer, in seconds (USSD_TIMEOUT and timeout_seconds). */
export const MIN_USSD_TIMEOUT_SECONDS = 5;
export const MAX_USSD_TIMEOUT_SECONDS = 300;

/**
 * What a USSD code may hold: digits, * and #, starting with * or # and ending with #, as a
 * phone's dialler takes them (*100#, *#06#, *123*1*79001234567#). Anything else is refused
 * before a phone sees it.
 */
export const USSD_CODE_PATTERN = '^[*#][0-9*#]*#$';
export const USSD_CODE_MAX_LENGTH = 64;
/** A USSD message carries at most 182 characters; a reply is one. */
export const USSD_TEXT_MAX_LENGTH = 182;

/** -2: the phone's default SIM; 0..2: a slot (as an SMS's sim_slot, but never "random"). */
export const USSD_SIMS = [-2, 0, 1, 2] as const;
export const DEFAULT_USSD_SIM = -2;

const statusOf = (description: string) => Type.Union(USSD_STATUSES.map((status) => Type.Literal(status)), { description });

export const UssdStartBody = Type.Object(
  {
    code: Type.String({
      minLength: 3,
      maxLength: USSD_CODE_MAX_LENGTH,
      pattern: USSD_CODE_PATTERN,
      description: 'digits, * and # only, starting with * or # and ending with #, 3 to 64 characters (e.g. *100#)',
    }),
    sim: Type.Optional(
      Type.Union(USSD_SIMS.map((sim) => Type.Literal(sim)), {
        description: 'SIM slot to dial from, 0-2; -2 (the default) lets the phone use its default SIM',
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: MIN_USSD_TIMEOUT_SECONDS,
        maximum: MAX_USSD_TIMEOUT_SECONDS,
        description: 'seconds to wait for each answer (the phone\'s, then the client\'s reply to a menu), 5-300; default USSD_TIMEOUT (30)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UssdReplyBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: USSD_TEXT_MAX_LENGTH,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: 'the answer to the network\'s menu (usually a digit), 1-182 characters, no control characters',
    }),
  },
  { additionalProperties: false },
);

const Exchange = Type.Object(
  {
    from: Type.Union([Type.Literal('client'), Type.Literal('network')], { description: 'client: the code dialled or a reply; network: a menu or the answer' }),
    text: Type.String(),
    at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const UssdView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.String({ format: 'uuid', description: 'the phone that dials' }),
    code: Type.String({ description: 'the code dialled' }),
    sim: Type.Integer({ description: 'SIM slot asked for; -2: the phone\'s default' }),
    status: statusOf('pending: waiting for the phone; waiting_reply: the network asks for a reply (POST /ussd/{id}/reply); completed and failed are final'),
    message: Type.Union([Type.String(), Type.Null()], { description: 'the network\'s latest text: a menu while waiting_reply, the answer once completed; null before it answered' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed: "timeout" (no answer in time), or the phone\'s reason; null unless it failed' }),
    history: Type.Array(Exchange, { description: 'what was said, in order: the code, each menu, each reply, the answer' }),
    timeout_seconds: Type.Integer({ description: 'seconds each answer is waited for' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the current wait ends as failed (timeout); null once final' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when it completed or failed; null while it is pending or waiting_reply' }),
  },
  { additionalProperties: false },
);

export const UssdList = PageOf(UssdView);

export const UssdListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const UssdIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'USSD session id (UUID)' }) });
