import { useState } from 'preact/hooks';
import { ErrorNotice } from './ui/error-notice.js';
import { consoleApi, shownError, type ShownError } from './shell/ferry-api.js';

/**
 * Asks for an API key and tries it with the smallest read there is (one request of the list) before keeping it,
 * so a wrong key is told at once rather than on the first page.
 */
export function SignIn({ onSignedIn, reason }: { onSignedIn: (apiKey: string) => void; reason: string | null }) {
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = apiKey.trim();
    if (key === '') {
      setError({ title: 'An API key is needed', status: null, code: null, message: 'Paste the API key of the project to look at.', field: null, requestId: null, retryAfter: null });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await consoleApi(key).actions.requests.list({ limit: 1 });
      onSignedIn(key);
    } catch (err) {
      setError(shownError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Ferry console</h1>
      {reason ? <p class="notice">{reason}</p> : null}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={apiKey}
          onInput={(e) => setApiKey((e.target as HTMLInputElement).value)}
          autofocus
        />
        <p class="muted">Kept in this tab only (session storage) until you sign out or close it.</p>
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {error ? <ErrorNotice error={error} /> : null}
    </main>
  );
}
