// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function DevicesPage(_props: Record<string, string>) {
  return <Page title="DevicesPage">Not built yet.</Page>;
}
