import { Type } from '@sinclair/typebox';

export const DeviceCallParams = Type.Object({
  callId: Type.String({ minLength: 1, maxLength: 64, description: 'the phone\'s own id of the call, as it reported it on its calls topic' }),
});

/** The audio itself, as OpenAPI describes a binary body. */
export const AudioBody = Type.String({ format: 'binary', description: 'the audio bytes' });
