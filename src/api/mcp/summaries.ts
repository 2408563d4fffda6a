// One line per row for the text part of a tool result: what an assistant needs to answer a
// person at a glance; the full rows are in the structured content.

export function smsLine(sms: any): string {
  const reason = sms.reason ? ` (${sms.reason})` : '';
  return `${sms.id} to ${sms.phone}: ${sms.status}${reason}, created ${sms.sent_at}${sms.device_id ? `, device ${sms.device_id}` : ''}`;
}

export function sent(created: any[]): string {
  if (created.length === 1) return `Queued 1 SMS: ${smsLine(created[0])}`;
  return `Queued ${created.length} SMS:\n${created.map((sms) => `- ${smsLine(sms)}`).join('\n')}`;
}

export function smsDetail(sms: any): string {
  const history = (sms.history ?? []).map((entry: any) => `  ${entry.at ?? ''} ${entry.status ?? entry.internal_status}${entry.reason ? ` (${entry.reason})` : ''}`);
  return [`${smsLine(sms)}`, `Message: ${sms.message}`, ...(history.length > 0 ? ['History:', ...history] : [])].join('\n');
}

export function deviceLine(device: any): string {
  const state = [
    device.is_online ? 'online' : 'offline',
    device.battery_level === null || device.battery_level === undefined ? 'battery unknown' : `battery ${device.battery_level}%${device.is_charging ? ' charging' : ''}`,
    device.signal_percent === null || device.signal_percent === undefined ? 'signal unknown' : `signal ${device.signal_percent}%`,
    device.paused_until ? `paused until ${device.paused_until}${device.paused_reason ? ` (${device.paused_reason})` : ''}` : 'not paused',
    device.can_send_sms ? 'may send' : 'sending off',
    // Said only when the radio says it cannot: the usual case needs no words.
    ...(device.radio?.can_send === false ? [`radio cannot send${device.radio.problem ? ` (${device.radio.problem})` : ''}`] : []),
  ];
  return `${device.id} "${device.name_custom}": ${state.join(', ')}${device.last_seen_at ? `, last seen ${device.last_seen_at}` : ''}`;
}

export function incomingLine(sms: any): string {
  return `${sms.id} from ${sms.phone} at ${sms.received_at} on device ${sms.device_id}: ${sms.message}`;
}

export function conversationLine(conversation: any): string {
  const last = conversation.last_message;
  const lastText = last ? `, last ${last.direction} at ${last.at}: ${last.message}` : '';
  return `${conversation.phone}: ${conversation.unread_count} unread${lastText}`;
}

export function threadLine(message: any): string {
  const status = message.status ? ` [${message.status}]` : '';
  return `${message.at} ${message.direction === 'incoming' ? '<-' : '->'} ${message.message}${status}`;
}
