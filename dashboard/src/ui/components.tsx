// The building blocks every view uses, so that loading, errors, empty lists, forms and
// confirmations look and behave the same everywhere.
import { Fragment, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { RANGES, type RangeKey } from './format';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorMessage({ error, onRetry }: { error: string | null | undefined; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      <span>{error}</span>
      {onRetry && (
        <button type="button" className="link" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

/** Loading, error (with retry) or the content of one read. */
export function Async<T>({
  state,
  children,
}: {
  state: { data: T | undefined; error: string | null; loading: boolean; reload(): void };
  children: (data: T) => ReactNode;
}) {
  if (state.error) return <ErrorMessage error={state.error} onRetry={state.reload} />;
  if (state.data === undefined) return <Loading />;
  return (
    <>
      {state.loading && <Loading label="Refreshing…" />}
      {children(state.data)}
    </>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · playtrace`;
  }, [title]);
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children && <div className="actions">{children}</div>}
    </header>
  );
}

export function Card({ title, children, actions }: { title?: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      {(title || actions) && (
        <div className="card-header">
          {title && <h2>{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

/** A labelled form control: the label wraps the control, with an optional hint below. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
      {hint && <span className="hint">{hint}</span>}
    </label>
  );
}

export function SubmitButton({ busy, children }: { busy: boolean; children: ReactNode }) {
  return (
    <button type="submit" className="primary" disabled={busy} aria-busy={busy}>
      {busy ? 'Working…' : children}
    </button>
  );
}

/**
 * A button that asks first: a modal dialog names what will happen, and only its confirm
 * button runs the action.
 */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  danger = true,
  className,
  disabled,
}: {
  label: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  danger?: boolean;
  className?: string;
  /** The button cannot open the dialog (nothing to act on yet). */
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  return (
    <>
      <button type="button" className={className ?? (danger ? 'danger' : undefined)} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <h2 id={titleId}>{title}</h2>
        <div>{message}</div>
        <div className="dialog-actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'danger' : 'primary'}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await onConfirm();
              } finally {
                setBusy(false);
                dialog.current?.close();
              }
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // Without clipboard permission (plain http on another host) select the text instead.
          const area = document.createElement('textarea');
          area.value = text;
          document.body.appendChild(area);
          area.select();
          document.execCommand('copy');
          area.remove();
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function RangePicker({ value, onChange }: { value: RangeKey; onChange: (key: RangeKey) => void }) {
  return (
    <Field label="Range">
      <select value={value} onChange={(e) => onChange(e.target.value as RangeKey)}>
        {RANGES.map((r) => (
          <option key={r.key} value={r.key}>
            {r.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A status word as a coloured badge. */
export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'good' | 'warn' | 'bad'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/**
 * An identifier (an event name such as `level_complete.boss`) that may wrap only after its
 * separators (`_ . - : /`), never in the middle of a word; a single word longer than the line
 * still wraps rather than overflow (`.name-wrap`).
 */
export function WrappingName({ name }: { name: string }) {
  const parts = name.split(/(?<=[_.\-:/])/);
  return (
    <span className="name-wrap">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
