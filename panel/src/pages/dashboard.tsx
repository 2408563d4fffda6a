// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function DashboardPage(_props: Record<string, string>) {
  return <Page title="DashboardPage">Not built yet.</Page>;
}
