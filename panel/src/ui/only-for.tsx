// A page only some users may use (owners, the instance administrator): the others see its title
// and who may use it, rather than the refusals its API calls would bring.
import type { ComponentChildren } from 'preact';
import { Page } from './page.tsx';

export function OnlyFor({ allowed, title, others, children }: { allowed: boolean; title: string; others: string; children: ComponentChildren }) {
  if (allowed) return <>{children}</>;
  return (
    <Page title={title}>
      <p>{others}</p>
    </Page>
  );
}
