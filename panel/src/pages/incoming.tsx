// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function IncomingPage(_props: Record<string, string>) {
  return <Page title="IncomingPage">Not built yet.</Page>;
}
