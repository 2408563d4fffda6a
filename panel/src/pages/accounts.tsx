// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function AccountsPage(_props: Record<string, string>) {
  return <Page title="AccountsPage">Not built yet.</Page>;
}
