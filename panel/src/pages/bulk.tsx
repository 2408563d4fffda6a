// PLACEHOLDER: replaced by the page's real implementation.
import { Page } from '../ui/page.tsx';

export function BulkPage(_props: Record<string, string>) {
  return <Page title="BulkPage">Not built yet.</Page>;
}
