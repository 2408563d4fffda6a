// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function DeviceDetailPage(_props: Record<string, string>) {
  return <Page title="DeviceDetailPage">Not built yet.</Page>;
}
