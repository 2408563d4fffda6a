// SMS by status transition on /metrics (sms_status_transitions_total{from, to}): counted as
// status changes are committed. A report that skips steps records the implied ones too: each
// step counts as its own transition.
import type { Metrics } from '../../common/metrics.ts';
import type { EventListeners } from '../../events/domain-events.ts';
import type { DeliveryEvents } from './domain-events.ts';

export const SMS_TRANSITIONS = 'sms_status_transitions_total';
const SMS_TRANSITIONS_HELP = 'SMS status changes, by the status left and the status reached';

/** Declares the counter, so that /metrics shows it before the first change. */
export function declareTransitionMetrics(metrics: Metrics): void {
  metrics.declareCounter(SMS_TRANSITIONS, SMS_TRANSITIONS_HELP, ['from', 'to']);
}

export function transitionCounting(metrics: Metrics): EventListeners<Pick<DeliveryEvents, 'sms.status_changed'>> {
  return {
    'sms.status_changed': {
      committed: (changes) => {
        for (const change of changes) {
          let from = change.from;
          for (const to of change.path) {
            metrics.count(SMS_TRANSITIONS, SMS_TRANSITIONS_HELP, { from, to });
            from = to;
          }
        }
      },
    },
  };
}
