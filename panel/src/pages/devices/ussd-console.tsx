// A USSD console on a device's page: dial a code (*100#) on the phone, see the network's answer,
// reply when it shows a menu. The panel only asks the API (POST /devices/{id}/ussd, GET
// /ussd/{id}, POST /ussd/{id}/reply) and reads the session again every second while it waits for
// the phone; the API decides what is valid, and its messages are shown beside the fields.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post } from '../../api.ts';
import type { DeviceDetail, UssdSession } from '../../api/types.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { SelectField, TextField } from '../../ui/fields.tsx';
import { Card } from '../../ui/card.tsx';

/** How often a pending session is read again: answers take a second or a few. */
const POLL_MS = 1000;

const STATUS_TEXT: Record<UssdSession['status'], string> = {
  pending: 'Waiting for the network…',
  waiting_reply: 'The network asks for a reply.',
  completed: 'Completed.',
  failed: 'Failed.',
};

export function UssdConsole({ device }: { device: DeviceDetail }) {
  const [code, setCode] = useState('');
  const [sim, setSim] = useState('');
  const [reply, setReply] = useState('');
  const [session, setSession] = useState<UssdSession>();
  const [error, setError] = useState<ApiError | string>();
  const [busy, setBusy] = useState(false);

  // Reads a pending session again until the phone answers (or it times out).
  useEffect(() => {
    if (session?.status !== 'pending') return;
    const timer = setTimeout(() => {
      get<UssdSession>(`/ussd/${encodeURIComponent(session.id)}`).then(setSession, (caught: unknown) => setError(caught instanceof ApiError ? caught : String(caught)));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [session]);

  const act = async (work: () => Promise<UssdSession>) => {
    setError(undefined);
    setBusy(true);
    try {
      setSession(await work());
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : String(caught));
    } finally {
      setBusy(false);
    }
  };
  const dial = (event: Event) => {
    event.preventDefault();
    setReply('');
    void act(() => post<UssdSession>(`/devices/${encodeURIComponent(device.id)}/ussd`, { code: code.trim(), ...(sim === '' ? {} : { sim: Number(sim) }) }));
  };
  const answer = (event: Event) => {
    event.preventDefault();
    if (!session) return;
    void act(() => post<UssdSession>(`/ussd/${encodeURIComponent(session.id)}/reply`, { text: reply }).then((next) => (setReply(''), next)));
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.forField(field) : undefined);
  const open = session?.status === 'pending' || session?.status === 'waiting_reply';
  const simOptions = [
    { value: '', label: 'The phone\'s default SIM' },
    ...device.sim_cards.map((card) => ({ value: String(card.index), label: `SIM ${card.index + 1}${card.name_operator ? ` (${card.name_operator})` : ''}` })),
  ];

  return (
    <Card title="USSD">
      <p>Dial a service code such as *100# (the balance, with many operators) on this phone and read the network's answer. The phone must be online.</p>
      <ErrorNotice error={error instanceof ApiError && error.details.length > 0 ? undefined : error} />
      <form onSubmit={dial} aria-label="Dial a USSD code">
        <div class="form-row">
          <TextField label="Code" name="code" value={code} onValue={setCode} error={fieldError('code')} autoComplete="off" inputMode="tel" hint="Digits, * and # only, ending with #." />
          <SelectField label="SIM" name="sim" value={sim} onValue={setSim} options={simOptions} error={fieldError('sim')} />
        </div>
        <button type="submit" class="button button-primary" disabled={busy || open}>
          Dial
        </button>
      </form>
      {session && (
        <div class="ussd-session" data-testid="ussd-session">
          <p role="status">
            <strong>{session.code}</strong>: {STATUS_TEXT[session.status]}
            {session.status === 'failed' && session.error ? ` (${session.error})` : ''}
          </p>
          <ol class="ussd-history" aria-label="What was said">
            {session.history.map((said, index) => (
              <li key={index} class={`ussd-${said.from}`}>
                <span class="hint">{said.from === 'client' ? 'You' : 'Network'}: </span>
                <span class="ussd-text">{said.text}</span>
              </li>
            ))}
          </ol>
          {session.status === 'waiting_reply' && (
            <form onSubmit={answer} aria-label="Reply to the menu">
              <TextField label="Reply" name="reply" value={reply} onValue={setReply} error={fieldError('text')} autoComplete="off" hint="Usually the number of a menu entry." />
              <button type="submit" class="button button-primary" disabled={busy}>
                Send reply
              </button>
            </form>
          )}
        </div>
      )}
    </Card>
  );
}
