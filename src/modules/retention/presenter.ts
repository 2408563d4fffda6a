import type { Static } from '@sinclair/typebox';
import type { RetentionSettings } from './types.ts';
import type { RetentionView } from './schema.ts';

export function presentRetention(settings: RetentionSettings): Static<typeof RetentionView> {
  return { keep_text_days: settings.keep_text_days, hash_recipients: settings.hash_recipients, updated_at: settings.updated_at?.toISOString() ?? null };
}
