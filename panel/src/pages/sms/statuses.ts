// The statuses GET /sms?status= accepts, in the order an SMS goes through them: the SMS list's
// "Status" choices.
import type { SmsStatus } from '../../api/types.ts';

export const SMS_STATUSES: SmsStatus[] = ['pending', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'];
