// A call's recording in the call log: the browser's player, and a link to download it.
import type { Call, Recording } from '../../api/types.ts';
import { formatTime } from '../../ui/format.ts';

export function RecordingPlayer({ call, recording }: { call: Call; recording: Recording }) {
  const label = `Recording of the call with ${call.phone} at ${formatTime(call.started_at)}`;
  return (
    <div class="call-recording">
      {/* preload="none": a long list must not download every recording to show its players. */}
      <audio controls preload="none" src={recording.download_path} aria-label={label} data-testid="call-recording" />
      <a href={recording.download_path} download>
        Download ({formatSize(recording.size_bytes)})
      </a>
    </div>
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
