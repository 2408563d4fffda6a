// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function WebhookDetailPage(_props: Record<string, string>) {
  return <Page title="WebhookDetailPage">Not built yet.</Page>;
}
