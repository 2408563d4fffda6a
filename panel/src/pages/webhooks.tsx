// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function WebhooksPage(_props: Record<string, string>) {
  return <Page title="WebhooksPage">Not built yet.</Page>;
}
