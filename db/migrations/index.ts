// The ordered list of migrations. Listed by hand rather than read from the folder, so the
// same code runs under tsx, a bundle, or a test without depending on file scanning.
import type { Knex } from 'knex';
import * as foundation from './20261121_001_foundation.ts';
import * as deviceChannel from './20261121_002_device_channel.ts';
import * as legacySearch from './20261121_003_legacy_search.ts';
import * as webhooks from './20261121_004_webhooks.ts';
import * as delivery from './20261122_005_delivery.ts';
import * as webhookOrder from './20261122_006_webhook_order.ts';
import * as webhookFailureStreak from './20261122_007_webhook_failure_streak.ts';
import * as smsSentSimSlot from './20261122_008_sms_sent_sim_slot.ts';
import * as usersSessions from './20261122_009_users_sessions.ts';
import * as keysManage from './20261122_010_keys_manage.ts';
import * as usersManageAccountsDisabled from './20261123_011_users_manage_accounts_disabled.ts';
import * as calls from './20261123_012_calls.ts';
import * as deletedSms from './20261124_013_deleted_sms.ts';
import * as webhookChainHeads from './20261125_014_webhook_chain_heads.ts';
import * as deviceSignal from './20261126_015_device_signal.ts';
import * as webhookAnswers from './20261127_016_webhook_answers.ts';
import * as twilio from './20261128_017_twilio.ts';
import * as smpp from './20261128_018_smpp.ts';
import * as messageKinds from './20261129_019_message_kinds.ts';
import * as ussd from './20261129_020_ussd.ts';
import * as sendAttempts from './20261129_021_send_attempts.ts';
import * as dataSms from './20261129_022_data_sms.ts';
import * as mms from './20261129_023_mms.ts';
import * as smppReplace from './20261129_024_smpp_replace.ts';
import * as suppressionsRules from './20261129_025_suppressions_rules.ts';
import * as conversationsContacts from './20261129_026_conversations_contacts.ts';
import * as mail from './20261129_027_mail.ts';
import * as mailSettings from './20261130_028_mail_settings.ts';
import * as retentionMmsFiles from './20261201_029_retention_mms_files.ts';
import * as smsTransactional from './20261201_030_sms_transactional.ts';
import * as incomingMmsEnds from './20261201_031_incoming_mms_ends.ts';
import * as devicePauseAnnounced from './20261201_032_device_pause_announced.ts';
import * as secretKeyCheck from './20261202_033_secret_key_check.ts';
import * as incomingKeptOnPhone from './20261203_034_incoming_kept_on_phone.ts';
import * as deviceCapabilities from './20261203_035_device_capabilities.ts';
import * as smppDefaultDataCoding from './20261203_036_smpp_default_data_coding.ts';
import * as twilioDeviceScopeReplies from './20261203_037_twilio_device_scope_replies.ts';
import * as smsCounts from './20261203_038_sms_counts.ts';
import * as smsWayIn from './20261203_039_sms_way_in.ts';
import * as simNumbers from './20261203_040_sim_numbers.ts';
import * as deviceRadio from './20261203_041_device_radio.ts';
import * as fleetHealth from './20261204_042_fleet_health.ts';
import * as simLimitsStickySender from './20261204_043_sim_limits_sticky_sender.ts';
import * as smsSearch from './20261205_044_sms_search.ts';
import * as deviceAvailability from './20261205_046_device_availability.ts';
import * as upstreams from './20261206_047_upstreams.ts';
import * as contractSmsTrigramIndexes from './20261206_048_contract_sms_trigram_indexes.ts';
import * as smsCategoryDeviceGroups from './20261206_049_sms_category_device_groups.ts';
import * as upstreamSubmissionCosts from './20261206_050_upstream_submission_costs.ts';
import * as webhookChainsBySms from './20261207_051_webhook_chains_by_sms.ts';
import * as idempotencyResponseText from './20261208_052_idempotency_response_text.ts';
import * as contractWebhookDeliveriesChain from './20261209_053_contract_webhook_deliveries_chain.ts';
import * as upstreamsForAllKeys from './20261210_054_upstreams_for_all_keys.ts';
import * as smsWayInPanel from './20261211_055_sms_way_in_panel.ts';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121_001_foundation', foundation],
  ['20261121_002_device_channel', deviceChannel],
  ['20261121_003_legacy_search', legacySearch],
  ['20261121_004_webhooks', webhooks],
  ['20261122_005_delivery', delivery],
  ['20261122_006_webhook_order', webhookOrder],
  ['20261122_007_webhook_failure_streak', webhookFailureStreak],
  ['20261122_008_sms_sent_sim_slot', smsSentSimSlot],
  ['20261122_009_users_sessions', usersSessions],
  ['20261122_010_keys_manage', keysManage],
  ['20261123_011_users_manage_accounts_disabled', usersManageAccountsDisabled],
  ['20261123_012_calls', calls],
  ['20261124_013_deleted_sms', deletedSms],
  ['20261125_014_webhook_chain_heads', webhookChainHeads],
  ['20261126_015_device_signal', deviceSignal],
  ['20261127_016_webhook_answers', webhookAnswers],
  ['20261128_017_twilio', twilio],
  ['20261128_018_smpp', smpp],
  ['20261129_019_message_kinds', messageKinds],
  ['20261129_020_ussd', ussd],
  ['20261129_021_send_attempts', sendAttempts],
  ['20261129_022_data_sms', dataSms],
  ['20261129_023_mms', mms],
  ['20261129_024_smpp_replace', smppReplace],
  ['20261129_025_suppressions_rules', suppressionsRules],
  ['20261129_026_conversations_contacts', conversationsContacts],
  ['20261129_027_mail', mail],
  ['20261130_028_mail_settings', mailSettings],
  ['20261201_029_retention_mms_files', retentionMmsFiles],
  ['20261201_030_sms_transactional', smsTransactional],
  ['20261201_031_incoming_mms_ends', incomingMmsEnds],
  ['20261201_032_device_pause_announced', devicePauseAnnounced],
  ['20261202_033_secret_key_check', secretKeyCheck],
  ['20261203_034_incoming_kept_on_phone', incomingKeptOnPhone],
  ['20261203_035_device_capabilities', deviceCapabilities],
  ['20261203_036_smpp_default_data_coding', smppDefaultDataCoding],
  ['20261203_037_twilio_device_scope_replies', twilioDeviceScopeReplies],
  ['20261203_038_sms_counts', smsCounts],
  ['20261203_039_sms_way_in', smsWayIn],
  ['20261203_040_sim_numbers', simNumbers],
  ['20261203_041_device_radio', deviceRadio],
  ['20261204_042_fleet_health', fleetHealth],
  ['20261204_043_sim_limits_sticky_sender', simLimitsStickySender],
  ['20261205_044_sms_search', smsSearch],
  ['20261205_046_device_availability', deviceAvailability],
  ['20261206_047_upstreams', upstreams],
  ['20261206_048_contract_sms_trigram_indexes', contractSmsTrigramIndexes],
  ['20261206_049_sms_category_device_groups', smsCategoryDeviceGroups],
  ['20261206_050_upstream_submission_costs', upstreamSubmissionCosts],
  ['20261207_051_webhook_chains_by_sms', webhookChainsBySms],
  ['20261208_052_idempotency_response_text', idempotencyResponseText],
  ['20261209_053_contract_webhook_deliveries_chain', contractWebhookDeliveriesChain],
  ['20261210_054_upstreams_for_all_keys', upstreamsForAllKeys],
  ['20261211_055_sms_way_in_panel', smsWayInPanel],
];
