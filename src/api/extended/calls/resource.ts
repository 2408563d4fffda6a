// The call log as one resource: what the routes of calls and of their recordings share (the tag,
// calls:read to read, calls:delete to delete, a call named by its id), said once for both files.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentCall } from '../../../modules/calls/presenter.ts';
import { CallIdParams, CallView } from '../../../modules/calls/schema.ts';
import type { CallWithRecording } from '../../../modules/calls/service.ts';

export const call = resourceRoutes({
  tag: 'Calls',
  read: 'calls:read',
  write: 'calls:delete',
  params: CallIdParams,
  missing: ['invalid_id', 'call_not_found'],
  one: { description: 'the call', schema: CallView },
  present: (row: CallWithRecording) => presentCall(row.call, row.recording),
});
