// The dispatcher's way to the phones, with an MMS's subject, recipients and parts added to its
// task on the way: the dispatcher builds every task alike from the sms row (kind "mms" marks
// one), and this link, made in composition around the broker's, completes those that are MMS.
// Text SMS pass untouched, without a query.
import type { DeviceLink } from '../delivery/dispatcher.ts';
import type { SendTask } from '../delivery/task.ts';
import type { MmsService } from './service.ts';

export class MmsTaskLink implements DeviceLink {
  constructor(
    private readonly link: DeviceLink,
    private readonly mms: Pick<MmsService, 'taskFields'>,
  ) {}

  isReady(deviceId: string): boolean {
    return this.link.isReady(deviceId);
  }

  async sendTask(deviceId: string, task: SendTask): Promise<void> {
    if (task.kind === 'mms') {
      const fields = await this.mms.taskFields(task.sms_id);
      // Written with the sms row: missing only if the SMS was deleted meanwhile; a task without parts is refused by the phone.
      if (fields) task = { ...task, ...fields };
    }
    return this.link.sendTask(deviceId, task);
  }

  sendSettings(...args: Parameters<DeviceLink['sendSettings']>): Promise<void> {
    return this.link.sendSettings(...args);
  }

  revokeTask(deviceId: string, smsId: string, reason: string): Promise<void> {
    return this.link.revokeTask(deviceId, smsId, reason);
  }

  disconnect(deviceId: string): void {
    this.link.disconnect(deviceId);
  }
}
