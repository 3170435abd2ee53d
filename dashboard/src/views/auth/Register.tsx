import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../auth';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { useAction } from '../../ui/useLoad';
import { AuthFrame } from './AuthFrame';

export function Register() {
  const session = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    await action.run(async () => {
      const answer = await unwrap(api.POST('/v1/auth/register', { body: { email, password } }));
      await session.signIn(answer.token);
      navigate('/games', { replace: true });
    });
  }

  return (
    <AuthFrame
      title="Create your account"
      footer={
        <>
          Already have an account? <Link to="/sign-in">Sign in</Link>
        </>
      }
    >
      <form onSubmit={submit} className="form">
        <Field label="E-mail">
          <input type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" hint="At least 8 characters.">
          <input type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorMessage error={action.error} />
        <SubmitButton busy={action.busy}>Create account</SubmitButton>
      </form>
    </AuthFrame>
  );
}
