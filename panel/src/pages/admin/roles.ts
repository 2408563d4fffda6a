// The two roles, as a select offers them; the words say what each may do.
import type { Role } from '../../api/types.ts';

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'owner', label: 'owner (changes everything)' },
  { value: 'viewer', label: 'viewer (reads only)' },
];
