import type { SmppCredential } from './types.ts';

export function presentCredential(credential: SmppCredential) {
  return {
    id: credential.id,
    system_id: credential.system_id,
    name: credential.name,
    device_ids: credential.device_ids,
    throughput_per_second: credential.throughput_per_second,
    window_size: credential.window_size,
    default_data_coding: credential.default_data_coding,
    created_at: credential.created_at.toISOString(),
    revoked_at: credential.revoked_at?.toISOString() ?? null,
  };
}
