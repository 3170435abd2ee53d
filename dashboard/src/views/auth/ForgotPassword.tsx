import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { useAction } from '../../ui/useLoad';
import { AuthFrame } from './AuthFrame';

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const done = await action.run(() => unwrap(api.POST('/v1/auth/forgot-password', { body: { email } })));
    if (done !== undefined) setSent(true);
  }

  return (
    <AuthFrame title="Reset your password" footer={<Link to="/sign-in">Back to sign in</Link>}>
      {sent ? (
        <p className="notice" role="status">
          If an account exists for {email}, we have sent it an e-mail with a link to choose a new password. The link works for one hour.
        </p>
      ) : (
        <form onSubmit={submit} className="form">
          <p className="hint">Enter the e-mail address of your account and we will send you a link to choose a new password.</p>
          <Field label="E-mail">
            <input type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <ErrorMessage error={action.error} />
          <SubmitButton busy={action.busy}>Send reset link</SubmitButton>
        </form>
      )}
    </AuthFrame>
  );
}
