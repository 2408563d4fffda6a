// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function DeviceRegisterPage(_props: Record<string, string>) {
  return <Page title="DeviceRegisterPage">Not built yet.</Page>;
}
