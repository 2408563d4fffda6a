// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function SmsDetailPage(_props: Record<string, string>) {
  return <Page title="SmsDetailPage">Not built yet.</Page>;
}
