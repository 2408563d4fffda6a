// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function SendPage(_props: Record<string, string>) {
  return <Page title="SendPage">Not built yet.</Page>;
}
