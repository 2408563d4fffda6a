// Reads of parts of the API a gateway may not serve (an older gateway, or one built without them):
// the panel shows "not available" for those rather than an error, and keeps the rest of the page.
import { ApiError } from '../api.ts';

/** What `read` answers, or null when the gateway answers 404 (it serves no such route). */
export async function unlessAbsent<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
