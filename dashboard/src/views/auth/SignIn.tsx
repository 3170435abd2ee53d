import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError, unwrap } from '../../api/client';
import { useSession } from '../../auth';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { useAction } from '../../ui/useLoad';
import { AuthFrame } from './AuthFrame';

/** The sentences for the login refusals that carry a code. */
export function signInProblem(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'ACCOUNT_LOCKED') {
    return 'This account is locked after too many failed sign-in attempts. Wait 15 minutes and try again, or reset your password.';
  }
  if (error.code === 'ACCOUNT_PENDING') {
    return 'This account is not activated yet. Open the invitation e-mail and follow its link to set your password.';
  }
  return null;
}

export function SignIn() {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const next = params.get('next') ?? '/games';

  if (session.token && session.me) return <Navigate to={next} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    await action.run(async () => {
      try {
        const answer = await unwrap(api.POST('/v1/auth/login', { body: { email, password } }));
        await session.signIn(answer.token);
        navigate(next.startsWith('/') ? next : '/games', { replace: true });
      } catch (error) {
        throw new Error(signInProblem(error) ?? (error as Error).message);
      }
    });
  }

  return (
    <AuthFrame
      title="Sign in"
      footer={
        <>
          New to playtrace? <Link to="/register">Create an account</Link>
        </>
      }
    >
      {session.expired && <p className="notice">Your session has expired. Please sign in again.</p>}
      {params.get('reset') === '1' && <p className="notice">Your password is set. Sign in with it.</p>}
      <form onSubmit={submit} className="form">
        <Field label="E-mail">
          <input type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password">
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorMessage error={action.error} />
        <SubmitButton busy={action.busy}>Sign in</SubmitButton>
        <Link to="/forgot-password">Forgot your password?</Link>
      </form>
    </AuthFrame>
  );
}
