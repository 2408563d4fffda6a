// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function KeysPage(_props: Record<string, string>) {
  return <Page title="KeysPage">Not built yet.</Page>;
}
