// The dispatcher's way to the phones, with an MMS's subject, recipients and parts added to its
// task on the way: the dispatcher builds every task alike from the sms row (kind "mms" marks
// one), and this link, made in composition around the broker's, completes those that are MMS.
// Every other task, and everything else the dispatcher asks of the link, goes straight to the
// broker's link: a text SMS runs no code of this module.
import type { DeviceLink } from '../delivery/dispatcher.ts';
import { sendingByKind, type SendTask } from '../delivery/task.ts';
import type { MmsService } from './service.ts';

export class MmsTaskLink implements DeviceLink {
  readonly isReady: DeviceLink['isReady'];
  readonly sendTask: DeviceLink['sendTask'];
  readonly sendSettings: DeviceLink['sendSettings'];
  readonly revokeTask: DeviceLink['revokeTask'];
  readonly disconnect: DeviceLink['disconnect'];

  constructor(
    private readonly link: DeviceLink,
    private readonly mms: Pick<MmsService, 'taskFields'>,
  ) {
    this.isReady = link.isReady.bind(link);
    this.sendSettings = link.sendSettings.bind(link);
    this.revokeTask = link.revokeTask.bind(link);
    this.disconnect = link.disconnect.bind(link);
    this.sendTask = sendingByKind('mms', (deviceId, task) => this.sendMmsTask(deviceId, task), link.sendTask.bind(link));
  }

  private async sendMmsTask(deviceId: string, task: SendTask): Promise<void> {
    const fields = await this.mms.taskFields(task.sms_id);
    // Written with the sms row: missing only if the SMS was deleted meanwhile; a task without parts is refused by the phone.
    return this.link.sendTask(deviceId, fields ? { ...task, ...fields } : task);
  }
}
