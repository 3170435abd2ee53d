import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { useAction } from '../../ui/useLoad';
import { AuthFrame } from './AuthFrame';

/**
 * The page an e-mailed link opens: a password reset (`/reset-password?token=`) or the
 * activation of an invited, pending account (`/activate?token=`). Both set the password with
 * the token; activation also makes the account active.
 */
export function ResetPassword({ mode }: { mode: 'reset' | 'activate' }) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const action = useAction();
  const activating = mode === 'activate';

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (password !== confirm) {
      action.setError('The two passwords are not the same.');
      return;
    }
    const done = await action.run(() => unwrap(api.POST('/v1/auth/reset-password', { body: { token, password } })));
    if (done !== undefined) navigate('/sign-in?reset=1', { replace: true });
  }

  return (
    <AuthFrame title={activating ? 'Activate your account' : 'Choose a new password'} footer={<Link to="/sign-in">Back to sign in</Link>}>
      {!token ? (
        <p className="error" role="alert">
          This link has no token. Open the link from the e-mail again{activating ? '' : ', or ask for a new one'}.
          {!activating && (
            <>
              {' '}
              <Link to="/forgot-password">Ask for a new link</Link>
            </>
          )}
        </p>
      ) : (
        <form onSubmit={submit} className="form">
          {activating && <p className="hint">You were invited to a game on playtrace. Choose a password to activate your account.</p>}
          <Field label="New password" hint="At least 8 characters.">
            <input type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <Field label="Repeat the password">
            <input type="password" autoComplete="new-password" required minLength={8} value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </Field>
          <ErrorMessage error={action.error} />
          <SubmitButton busy={action.busy}>{activating ? 'Activate account' : 'Set password'}</SubmitButton>
        </form>
      )}
    </AuthFrame>
  );
}
