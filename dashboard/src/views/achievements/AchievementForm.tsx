// The form that defines an achievement (create) or changes one (edit; the key is fixed).
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../api/client';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { AchievementIcon } from './AchievementIcon';

export interface AchievementValues {
  key: string;
  name: string;
  description: string;
  icon_url: string;
  points: number;
  hidden: boolean;
}

export function AchievementForm({
  achievement,
  busy,
  error,
  submitLabel,
  onSave,
  onCancel,
}: {
  achievement?: Schemas['AchievementDefinition'];
  busy: boolean;
  error: string | null;
  submitLabel: string;
  onSave(values: AchievementValues): Promise<unknown>;
  onCancel?(): void;
}) {
  const [key, setKey] = useState(achievement?.key ?? '');
  const [name, setName] = useState(achievement?.name ?? '');
  const [description, setDescription] = useState(achievement?.description ?? '');
  const [iconUrl, setIconUrl] = useState(achievement?.icon_url ?? '');
  const [points, setPoints] = useState(String(achievement?.points ?? 10));
  const [hidden, setHidden] = useState(achievement?.hidden ?? false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    await onSave({ key: key.trim(), name: name.trim(), description: description.trim(), icon_url: iconUrl.trim(), points: Number(points), hidden });
  }

  return (
    <form className="form ach-form" onSubmit={submit}>
      {achievement ? (
        <Field label="Name" hint="Shown to players, up to 128 characters.">
          <input required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="First victory" />
        </Field>
      ) : (
        <div className="ach-form-row">
          <Field label="Key" hint="What the game unlocks it by: letters, digits, _ - . (up to 64). It cannot change later.">
            <input
              required
              maxLength={64}
              pattern="[A-Za-z0-9_.\-]+"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              placeholder="first_win"
              autoComplete="off"
              spellCheck={false}
            />
          </Field>
          <Field label="Name" hint="Shown to players, up to 128 characters.">
            <input required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="First victory" />
          </Field>
        </div>
      )}
      <Field label="Description" hint="Up to 1,000 characters; may be empty.">
        <textarea className="ach-description" maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} placeholder="Win your first match." />
      </Field>
      <div className="ach-form-row">
        <Field label="Icon URL (optional)" hint="An http(s) address of the image the game shows.">
          <div className="ach-icon-input">
            <AchievementIcon url={iconUrl.trim()} name={name || key || '?'} />
            <input type="url" maxLength={2048} value={iconUrl} onChange={(e) => setIconUrl(e.target.value)} placeholder="https://cdn.example.com/first-win.png" />
          </div>
        </Field>
        <Field label="Points" hint="0 to 1,000,000.">
          <input required type="number" min={0} max={1_000_000} step={1} inputMode="numeric" value={points} onChange={(e) => setPoints(e.target.value)} />
        </Field>
      </div>
      <label className="field checkbox">
        <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.target.checked)} />
        <span>
          Hidden until unlocked <span className="hint">(players see ??? for its name and description while it is locked)</span>
        </span>
      </label>
      <ErrorMessage error={error} />
      <div className="row-actions">
        <SubmitButton busy={busy}>{submitLabel}</SubmitButton>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
