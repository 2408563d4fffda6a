// An MMS's parts: images shown in place (served by the gateway, so the panel's CSP allows them),
// every other part as a download link.
import { formatSize } from '../calls/recording-player.tsx';

export interface ShownPart {
  key: string;
  content_type: string;
  size: number;
  /** null: not uploaded yet (a received MMS whose parts are still coming). */
  download_path: string | null;
}

export function MmsParts({ parts, label }: { parts: ShownPart[]; label: string }) {
  if (parts.length === 0) return <p class="muted">No media.</p>;
  return (
    <ul class="mms-parts" aria-label={label}>
      {parts.map((part) => (
        <li key={part.key} data-testid="mms-part">
          {!part.download_path ? (
            <span class="muted">
              {part.content_type}, {formatSize(part.size)}: not uploaded yet
            </span>
          ) : part.content_type.startsWith('image/') ? (
            <a href={part.download_path} target="_blank" rel="noreferrer">
              <img src={part.download_path} alt={`${part.content_type} part`} loading="lazy" class="mms-image" />
            </a>
          ) : (
            <a href={part.download_path} download>
              Download {part.content_type} ({formatSize(part.size)})
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}
