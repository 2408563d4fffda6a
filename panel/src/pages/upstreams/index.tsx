// The account's upstreams (providers that carry its SMS when its phones cannot: an SMSC over
// SMPP, or a service speaking Twilio's Messages API) and its routes, the rules saying when
// (docs/routes.md). Everyone who may read them sees how each link stands and what it cost this
// month; owners add, change, switch off and delete upstreams and edit the routes.
import { useState } from 'preact/hooks';
import { del, get, patch } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { DataTable } from '../../ui/data-table.tsx';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import { Page } from '../../ui/page.tsx';
import { useAction } from '../../ui/use-action.ts';
import { useLoad } from '../../ui/use-load.ts';
import { RoutesEditor } from './routes-editor.tsx';
import type { Upstream } from './types.ts';
import { UPSTREAM_COLUMNS } from './upstream-columns.tsx';
import { UpstreamEditor } from './upstream-editor.tsx';

export function UpstreamsPage(_props: Record<string, string>) {
  const session = useSession();
  const list = useLoad(() => get<{ data: Upstream[] }>('/upstreams'), []);
  const change = useAction(list.reload);
  const [done, setDone] = useState<string>();
  /** The upstream the last change was about, for saying what went wrong in its name. */
  const [subject, setSubject] = useState<Upstream>();
  const [editing, setEditing] = useState<string>();
  const upstreams = list.data?.data ?? [];
  const beingEdited = upstreams.find((upstream) => upstream.id === editing);

  const act = async (upstream: Upstream, what: () => Promise<unknown>, outcome: string) => {
    setDone(undefined);
    setSubject(upstream);
    if ((await change.run(async () => (await what(), true))) === true) setDone(outcome);
  };
  const toggle = (upstream: Upstream) =>
    void act(upstream, () => patch(`/upstreams/${upstream.id}`, { enabled: !upstream.enabled }), `${upstream.name} is ${upstream.enabled ? 'disabled: the routes skip it' : 'enabled'}.`);
  const remove = (upstream: Upstream) => {
    if (!window.confirm(`Delete the upstream ${upstream.name}? Its link closes and its figures go.`)) return;
    if (editing === upstream.id) setEditing(undefined);
    void act(upstream, () => del(`/upstreams/${upstream.id}`), `${upstream.name} is deleted.`);
  };
  const saved = (upstream: Upstream, verb: string) => {
    setDone(`${upstream.name} is ${verb}.`);
    change.clear();
    setEditing(undefined);
    list.reload();
  };
  // The gateway's 409 says what to do in general words; here the upstream has a name and the routes are on this page.
  const problem =
    change.error?.code === 'upstream_in_routes' && subject
      ? `${subject.name} cannot be deleted while the routes name it: take it out of the routes above and save them, then delete it.`
      : change.error;

  return (
    <Page
      title="Upstreams"
      actions={
        <button type="button" class="button" disabled={list.loading} onClick={list.reload}>
          Refresh
        </button>
      }
    >
      <p class="muted">Providers that send the account's SMS when its phones cannot, as the routes below say. Their link states are this gateway node's.</p>
      {done && <SuccessNotice>{done}</SuccessNotice>}
      <ErrorNotice error={problem} />
      <DataTable
        list={list}
        caption="Upstreams"
        class="stack-on-phone"
        empty={`No upstreams yet: every SMS goes to the phones.${session.canChange ? ' Add one below.' : ''}`}
        rowAttributes={(upstream) => ({ 'data-enabled': String(upstream.enabled) })}
        columns={[
          ...UPSTREAM_COLUMNS,
          session.canChange && {
            header: 'Change',
            cell: (upstream) => (
              <span class="admin-row-actions">
                <button type="button" class="button button-small" disabled={change.busy} aria-label={`Change ${upstream.name}`} onClick={() => setEditing(upstream.id)}>
                  Change
                </button>
                <button type="button" class="button button-small" disabled={change.busy} aria-label={`${upstream.enabled ? 'Disable' : 'Enable'} ${upstream.name}`} onClick={() => toggle(upstream)}>
                  {upstream.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" class="button button-small button-danger" disabled={change.busy} aria-label={`Delete ${upstream.name}`} onClick={() => remove(upstream)}>
                  Delete
                </button>
              </span>
            ),
          },
        ]}
      />
      {list.data && <RoutesEditor upstreams={upstreams} canChange={session.canChange} />}
      {session.canChange &&
        (beingEdited ? (
          <UpstreamEditor key={beingEdited.id} upstream={beingEdited} onSaved={(upstream) => saved(upstream, 'saved')} onCancel={() => setEditing(undefined)} />
        ) : (
          <UpstreamEditor key="new" onSaved={(upstream) => saved(upstream, 'added')} />
        ))}
      {!session.canChange && <p class="muted">Viewers see upstreams and routes; owners add and change them.</p>}
    </Page>
  );
}
