/** Sign in, or sign up (the first account on a server becomes its administrator). */
import { useState } from 'preact/hooks';
import { messageOf } from '../lib/api';
import { signIn, signUp } from '../lib/session';

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  // An invite link (`/?invite=<token>`, from an admin) opens the sign-up form with its token.
  const invite = new URLSearchParams(location.search).get('invite') ?? undefined;
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>(invite ? 'sign-up' : 'sign-in');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setBusy(true);
    try {
      if (mode === 'sign-up') await signUp(name.trim() || email, email, password, invite);
      else await signIn(email, password);
      onSignedIn();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="auth-page">
      <form class="card auth-card" onSubmit={(event) => void submit(event)} data-testid="auth-form">
        <h1>MangoStudio</h1>
        <div class="tabs" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'sign-in'}
            onClick={() => setMode('sign-in')}
          >
            Sign in
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'sign-up'}
            data-testid="sign-up-tab"
            onClick={() => setMode('sign-up')}
          >
            Sign up
          </button>
        </div>
        {mode === 'sign-up' && (
          <>
            <p class="muted small" data-testid="first-admin-note">
              The first account created on this server becomes its administrator. After that,
              sign-up needs an invite or <code>MANGO_ALLOW_SIGNUP=true</code>.
              {invite && ' You are signing up with an invite.'}
            </p>
            <label>
              Name
              <input
                value={name}
                autocomplete="name"
                onInput={(event) => setName(event.currentTarget.value)}
              />
            </label>
          </>
        )}
        <label>
          Email
          <input
            type="email"
            required
            value={email}
            autocomplete="email"
            data-testid="email"
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            required
            minLength={8}
            value={password}
            autocomplete={mode === 'sign-up' ? 'new-password' : 'current-password'}
            data-testid="password"
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        {problem && (
          <p class="field-error" role="alert" data-testid="auth-problem">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy} data-testid="auth-submit">
          {mode === 'sign-up' ? 'Create account' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
