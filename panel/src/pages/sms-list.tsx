// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function SmsListPage(_props: Record<string, string>) {
  return <Page title="SmsListPage">Not built yet.</Page>;
}
