// The MMS task link (src/modules/mms/task-link.ts): an MMS task is completed with its parts on the
// way to the phone; any other task, and everything else asked of the link, reaches the broker's
// link as it was, without the MMS module being asked anything.
import { expect } from 'chai';
import type { DeviceLink } from '../../src/modules/delivery/dispatcher.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import type { DeviceRow } from '../../src/modules/devices/types.ts';
import type { MmsTaskFields } from '../../src/modules/mms/service.ts';
import { MmsTaskLink } from '../../src/modules/mms/task-link.ts';

function task(fields: Partial<SendTask> = {}): SendTask {
  return { sms_id: 'sms-1', phone: '+79161234567', message: 'hello', sim: 0, created_at: '2026-01-01T00:00:00.000Z', valid_until: null, ...fields };
}

/** A broker's link that records what reached it; `this` is used, as the broker's own is a class. */
class RecordingLink implements DeviceLink {
  readonly calls: unknown[][] = [];
  isReady(deviceId: string): boolean {
    this.calls.push(['isReady', deviceId]);
    return deviceId === 'ready';
  }
  async sendTask(deviceId: string, sent: SendTask): Promise<void> {
    this.calls.push(['sendTask', deviceId, sent]);
  }
  async sendSettings(device: DeviceRow): Promise<void> {
    this.calls.push(['sendSettings', device.id]);
  }
  async revokeTask(deviceId: string, smsId: string, reason: string): Promise<void> {
    this.calls.push(['revokeTask', deviceId, smsId, reason]);
  }
  disconnect(deviceId: string): void {
    this.calls.push(['disconnect', deviceId]);
  }
}

describe('MmsTaskLink', () => {
  it('when a text task is sent, then it reaches the broker unchanged and the MMS module is not asked', async () => {
    const broker = new RecordingLink();
    const asked: string[] = [];
    const link = new MmsTaskLink(broker, {
      taskFields: async (smsId) => {
        asked.push(smsId);
        return undefined;
      },
    });
    await link.sendTask('device-1', task());
    expect(broker.calls).to.deep.equal([['sendTask', 'device-1', task()]]);
    expect(asked).to.deep.equal([]);
  });

  it('when an MMS task is sent, then it reaches the broker with its parts added', async () => {
    const broker = new RecordingLink();
    const parts: MmsTaskFields = { subject: 'Hi', recipients: ['+79161234567'], parts: [{ id: 'part-1', content_type: 'image/png', size: 3, path: '/mms/part-1' }] };
    const link = new MmsTaskLink(broker, { taskFields: async () => parts });
    await link.sendTask('device-1', task({ kind: 'mms' }));
    expect(broker.calls).to.deep.equal([['sendTask', 'device-1', { ...task({ kind: 'mms' }), ...parts }]]);
  });

  it('when the MMS was deleted meanwhile, then its task goes on as it was', async () => {
    const broker = new RecordingLink();
    const link = new MmsTaskLink(broker, { taskFields: async () => undefined });
    await link.sendTask('device-1', task({ kind: 'mms' }));
    expect(broker.calls).to.deep.equal([['sendTask', 'device-1', task({ kind: 'mms' })]]);
  });

  it('when the dispatcher asks readiness, settings, a revoke or a disconnect, then the broker hears it as asked', async () => {
    const broker = new RecordingLink();
    const link = new MmsTaskLink(broker, { taskFields: async () => undefined });
    expect(link.isReady('ready')).to.equal(true);
    expect(link.isReady('other')).to.equal(false);
    await link.sendSettings({ id: 'device-1' } as DeviceRow);
    await link.revokeTask('device-1', 'sms-1', 'cancelled');
    link.disconnect('device-1');
    expect(broker.calls).to.deep.equal([
      ['isReady', 'ready'],
      ['isReady', 'other'],
      ['sendSettings', 'device-1'],
      ['revokeTask', 'device-1', 'sms-1', 'cancelled'],
      ['disconnect', 'device-1'],
    ]);
  });
});
