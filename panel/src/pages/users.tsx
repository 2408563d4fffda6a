// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function UsersPage(_props: Record<string, string>) {
  return <Page title="UsersPage">Not built yet.</Page>;
}
