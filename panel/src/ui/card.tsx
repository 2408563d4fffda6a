// A boxed part of a page with its own heading: a <section> named by that heading, so that a screen
// reader lists it among the page's regions under that name.
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

/** `class`: more classes than "card" (admin-form, bulk-result...). */
export function Card({ title, class: more, children }: { title: ComponentChildren; class?: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class={more ? `card ${more}` : 'card'} aria-labelledby={id}>
      <h2 id={id} class="card-heading">
        {title}
      </h2>
      {children}
    </section>
  );
}
