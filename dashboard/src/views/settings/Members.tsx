// The people of a game: invite by e-mail with a role, change roles, remove (owners only).
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useSession } from '../../auth';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, CopyButton, Empty, ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useAction, useLoad, type Loaded } from '../../ui/useLoad';
import { announceGamesChanged, formatDate, ROLES, roleLabel } from './shared';

type Member = Schemas['Member'];
type AddedMember = Schemas['AddedMember'];
type MemberList = Schemas['MemberList'];

export function Members() {
  const { game, isOwner } = useGame();
  const members = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/members', { params: { path: { game_id: game.game_id } } })),
    [game.game_id],
  );
  return (
    <>
      {isOwner ? (
        <InviteCard members={members} />
      ) : (
        <p className="notice">Only the owners of {game.name} can invite people, change roles or remove members.</p>
      )}
      <Card title="Members">
        <Async state={members}>
          {({ members: list }) =>
            list.length === 0 ? (
              <Empty title="No members">Invite a teammate above by e-mail.</Empty>
            ) : (
              <MemberTable list={list} members={members} />
            )
          }
        </Async>
      </Card>
      <Card title="What each role may do">
        <dl className="facts roles">
          {ROLES.map((r) => (
            <div key={r.value} className="fact-row">
              <dt>{r.label}</dt>
              <dd>{r.description}</dd>
            </div>
          ))}
        </dl>
      </Card>
    </>
  );
}

function InviteCard({ members }: { members: Loaded<MemberList> }) {
  const { game } = useGame();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Schemas['Role']>('editor');
  const [done, setDone] = useState<AddedMember | null>(null);
  const invite = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    const member = await invite.run(() =>
      unwrap(api.POST('/v1/games/{game_id}/members', { params: { path: { game_id: game.game_id } }, body: { email: email.trim(), role } })),
    );
    if (member) {
      setDone(member);
      setEmail('');
      members.reload();
    }
  }

  return (
    <Card title="Invite a teammate">
      <form onSubmit={submit} className="form inline">
        <Field label="E-mail">
          <input type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@studio.com" />
        </Field>
        <Field label="Role">
          <select value={role} onChange={(e) => setRole(e.target.value as Schemas['Role'])}>
            {ROLES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </Field>
        <SubmitButton busy={invite.busy}>Send invitation</SubmitButton>
      </form>
      <p className="hint">
        Someone without a playtrace account gets an e-mail with a link to choose a password (valid 7 days); without a mail server,
        you get the link here to send yourself. Someone who has one sees {game.name} in their games at once.
      </p>
      <ErrorMessage error={invite.error} />
      {done && <Added member={done} onDone={() => setDone(null)} />}
    </Card>
  );
}

/** What became of an invitation: the mail went out, or (no SMTP server on this node, or it
 * refused the mail) the link the owner passes on, shown this once. */
function Added({ member, onDone, resent = false }: { member: AddedMember; onDone(): void; resent?: boolean }) {
  const { game } = useGame();
  const role = roleLabel(member.role).toLowerCase();
  const joins = resent
    ? 'Their earlier invitation link no longer works.'
    : `They join as ${role} once they set a password.`;
  if (member.invitation_link) {
    const why =
      member.invitation_mail === 'failed'
        ? 'The mail server did not take the invitation e-mail, so no mail was sent.'
        : 'This server has no mail server configured, so no e-mail was sent.';
    return (
      <div className="new-key" role="status">
        <p>
          <strong>{resent ? `A new invitation for ${member.email}.` : `${member.email} is invited.`}</strong> {why} Send them this link yourself (valid 7 days; it will not be shown again).{' '}
          {joins}
        </p>
        <div className="secret">
          <code aria-label="Invitation link">{member.invitation_link}</code>
          <CopyButton text={member.invitation_link} label="Copy link" />
        </div>
        <button type="button" className="small" onClick={onDone}>
          Done
        </button>
      </div>
    );
  }
  return (
    <p className="success" role="status">
      {member.invitation_mail === 'sent'
        ? `${resent ? 'A new invitation e-mail' : 'Invitation e-mail'} sent to ${member.email}. ${joins}`
        : member.status === 'pending'
          ? `${member.email} is added as ${role}; they have not set a password yet (their earlier invitation still holds).`
          : `${member.email} is now ${/^[aeiou]/i.test(member.role) ? 'an' : 'a'} ${role} of ${game.name}.`}
    </p>
  );
}

function MemberTable({ list, members }: { list: Member[]; members: Loaded<MemberList> }) {
  const { isOwner } = useGame();
  const owners = list.filter((m) => m.role === 'owner').length;
  return (
    <div className="table-wrap">
      <table className="table members-table stack-table">
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Added</th>
            {isOwner && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {list.map((member) => (
            <MemberRow key={member.user_id} member={member} members={members} lastOwner={member.role === 'owner' && owners === 1} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function MemberRow({ member, members, lastOwner }: { member: Member; members: Loaded<MemberList>; lastOwner: boolean }) {
  const { game, isOwner, reload: reloadGame } = useGame();
  const { me } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const resend = useAction();
  const [role, setRole] = useState<Schemas['Role']>(member.role);
  const [roleSaved, setRoleSaved] = useState('');
  const [resent, setResent] = useState<AddedMember | null>(null);
  const isMe = me?.id === member.user_id;
  const path = { game_id: game.game_id, user_id: member.user_id };

  // Like every setting: choose, then Save, then a note of what was saved (or the error).
  async function saveRole(e: FormEvent) {
    e.preventDefault();
    setRoleSaved('');
    const updated = await action.run(() => unwrap(api.PATCH('/v1/games/{game_id}/members/{user_id}', { params: { path }, body: { role } })));
    if (!updated || !members.data) return;
    setRoleSaved(`Saved: ${roleLabel(updated.role).toLowerCase()}`);
    members.set({ members: members.data.members.map((m) => (m.user_id === updated.user_id ? updated : m)) });
    // Giving up one's own ownership changes what this page may show.
    if (isMe && !me?.is_admin) reloadGame();
  }

  async function resendInvitation() {
    setResent(null);
    const answer = await resend.run(() => unwrap(api.POST('/v1/games/{game_id}/members/{user_id}/invitation', { params: { path } })));
    if (answer) setResent(answer);
  }

  async function remove() {
    const done = await action.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/members/{user_id}', { params: { path } }));
      return true;
    });
    if (!done) return;
    if (isMe && !me?.is_admin) {
      announceGamesChanged();
      navigate('/games', { replace: true });
      return;
    }
    members.reload();
  }

  return (
    <tr>
      <td className="lead">
        <span className="member-email">{member.email}</span>
        {isMe && (
          <>
            {' '}
            <Badge>you</Badge>
          </>
        )}
        {resend.error && <ErrorMessage error={resend.error} />}
        {resent && <Added member={resent} resent onDone={() => setResent(null)} />}
      </td>
      <td data-label="Role">
        {isOwner ? (
          <form className="limit-form" onSubmit={saveRole}>
            <select
              aria-label={`Role of ${member.email}`}
              value={role}
              disabled={action.busy || lastOwner}
              title={lastOwner ? 'A game must keep at least one owner' : undefined}
              onChange={(e) => {
                setRole(e.target.value as Schemas['Role']);
                setRoleSaved('');
                action.setError(null);
              }}
            >
              {ROLES.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
            {!lastOwner && (
              <button type="submit" className="small" disabled={action.busy || role === member.role} aria-busy={action.busy}>
                {action.busy ? 'Saving…' : 'Save'}
                <span className="visually-hidden"> role of {member.email}</span>
              </button>
            )}
            <span className="hint saved-note" role="status">
              {roleSaved}
            </span>
          </form>
        ) : (
          roleLabel(member.role)
        )}
        {action.error && <ErrorMessage error={action.error} />}
      </td>
      <td data-label="Status">
        {member.status === 'pending' ? (
          <span title="Invited; has not set a password yet">
            <Badge tone="warn">Invited</Badge>
          </span>
        ) : (
          <Badge tone="good">Active</Badge>
        )}
      </td>
      <td className="nowrap" data-label="Added" title={formatTime(member.added_at)}>
        {formatDate(member.added_at)}
      </td>
      {isOwner && (
        <td className="row-actions">
          {member.status === 'pending' && (
            <button type="button" className="small" disabled={resend.busy} aria-busy={resend.busy} onClick={() => void resendInvitation()}>
              {resend.busy ? 'Sending…' : 'Resend invitation'}
              <span className="visually-hidden"> to {member.email}</span>
            </button>
          )}{' '}
          {lastOwner ? (
            <span className="hint">Last owner</span>
          ) : (
            <ConfirmButton
              className="danger small"
              label={isMe ? 'Leave' : 'Remove'}
              title={isMe ? `Leave ${game.name}?` : `Remove ${member.email}?`}
              message={
                isMe
                  ? `You will no longer see ${game.name} or its data.`
                  : `${member.email} will no longer see ${game.name} or its data. You can invite them again later.`
              }
              confirmLabel={isMe ? 'Leave game' : 'Remove member'}
              onConfirm={remove}
            />
          )}
        </td>
      )}
    </tr>
  );
}
