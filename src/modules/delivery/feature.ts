// Delivery: hands queued SMS to phones as tasks, paced and failed over, and applies what the
// phones report (sent, delivered, failed).
import { defineFeature } from '../../composition/feature.ts';
import { Dispatcher } from './dispatcher.ts';
import { PauseAnnouncer } from './pause-announcer.ts';
import { StatusIngestor } from './status-ingestor.ts';
import { TaskService } from './task-service.ts';
import { TransientStore } from './transient-store.ts';
import { deliveryWebhookListeners } from './webhook-listeners.ts';
import { declareTransitionMetrics, transitionCounting } from './transition-metrics.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    statusIngestor: StatusIngestor;
    dispatcher: Dispatcher;
    /** Announces a device's pause and its end (device.paused, device.resumed), once a second. */
    pauseAnnouncer: PauseAnnouncer;
    /** What the use cases ask of delivery about SMS tasks (a device switched off or deleted, an SMS cancelled). */
    tasks: TaskService;
  }
}

export const deliveryFeature = defineFeature({
  name: 'delivery',
  provides: ['statusIngestor', 'dispatcher', 'pauseAnnouncer', 'tasks'],
  make: ({ db, config, clock, logger, parts }, need) => {
    const events = need('events');
    // SMS kept out of the database (no_store) wait here for their phone.
    const transient = new TransientStore();
    const dispatchLogger = logger.child({ component: 'dispatch' });
    const dispatching = {
      ackTimeoutMs: config.taskRetryAfterMs,
      failoverAfterMs: config.failoverAfterMs,
      sweepIntervalMs: 1_000,
      breaker: { failures: config.pauseAfterFailures, pauseMs: config.pauseForMs },
      simBreaker: { failures: config.simPauseAfterFailures, pauseMs: config.simPauseForMs },
    };
    return {
      tasks: new TaskService(db, events, clock),
      statusIngestor: new StatusIngestor(db, transient, events, clock, logger.child({ component: 'status' }), undefined, { backoffMs: config.sendRetryBackoffMs }),
      dispatcher: new Dispatcher(db, need('presence'), transient, events, clock, dispatchLogger, dispatching, need('taskLink'), parts.cluster?.transients),
      pauseAnnouncer: new PauseAnnouncer(db, events, clock, dispatchLogger),
    };
  },
  listens: [
    {
      // What the dispatcher hears: new work, devices that change, and every status change.
      register: (events, need) => {
        const dispatcher = need('dispatcher');
        events.listen('sms.status_changed', dispatcher.statusChanges);
        events.on('sms.attempts_ended', (ended) => dispatcher.attemptsEnded(ended));
        events.on('sms.queued', (sms) => dispatcher.queued(sms));
        events.on('sms.transient', (sms) => dispatcher.handTransient(sms));
        events.on('device.online', ({ deviceId }) => dispatcher.spokeAgain(deviceId));
        events.on('device.settings_changed', (device) => dispatcher.settingsChanged(device));
        events.on('device.deleted', (device) => dispatcher.deviceDeleted(device));
        events.on('device.token_replaced', (device) => dispatcher.tokenReplaced(device));
        events.on('tasks.withdrawn', (withdrawn) => dispatcher.revokeWithdrawn(withdrawn));
        // A device whose every SIM is degraded (send) gives back its unacknowledged pool tasks; one that recovered claims again.
        events.on('fleet.health_changed', (changes) => dispatcher.healthChanged(changes));
      },
    },
    { register: (events, need) => void events.listenAll(transitionCounting(need('metrics'))) },
    {
      // With several nodes, an SMS queued here wakes the others: its phone may be connected there.
      register: (events, _need, { parts }) => {
        const wakeUps = parts.cluster?.wakeUps;
        if (wakeUps) events.on('sms.queued', (sms) => wakeUps.queued(sms));
      },
    },
    {
      // Status changes and pauses as webhook events. SMS created through the Twilio API call their
      // StatusCallback: deliveries of the "twilio" format, written with the standard events.
      register: (events, need, { db }) =>
        void events.listenAll(deliveryWebhookListeners({ db, outbox: need('outbox'), sender: need('webhookSender'), devices: need('devices'), statusCallbacks: need('twilio').statusCallbacks })),
    },
  ],
  meters: ({ metrics }) => declareTransitionMetrics(metrics),
  runs: ({ dispatcher, pauseAnnouncer, statusIngestor }) => [
    { name: 'dispatcher', start: () => dispatcher.start(), stop: () => dispatcher.stop(), stopsIn: 'work' },
    { name: 'pause announcer', start: () => pauseAnnouncer.start(), stop: () => pauseAnnouncer.stop(), stopsIn: 'work' },
    // Reports that arrived before the broker closed are applied before the database closes.
    { name: 'status ingestor', start: () => {}, stop: () => statusIngestor.idle(), stopsIn: 'phones-gone' },
  ],
  waysIn: async () => {
    const { deliveryRoutes } = await import('../../api/extended/delivery/routes.ts');
    return { routes: (s) => deliveryRoutes(s.tasks) };
  },
});
