// Raw event export: the game's events as one NDJSON or CSV download (optionally gzipped), by
// day range and event names, with the same request as a command for very large exports.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useGame } from '../../GameShell';
import { Card, CopyButton, ErrorMessage, Field } from '../../ui/components';
import { download, formatBytes } from '../../ui/download';
import { formatNumber, isoDay } from '../../ui/format';
import { useAction } from '../../ui/useLoad';

/** The most event names one export takes. */
const MAX_NAMES = 20;

const FORMATS = [
  { value: 'ndjson', label: 'NDJSON', hint: 'One JSON object a line, properties as they were sent. For scripts and data warehouses.' },
  { value: 'csv', label: 'CSV', hint: 'A header row, properties as JSON text. Opens in a spreadsheet.' },
] as const;

type Format = (typeof FORMATS)[number]['value'];

/** Event names from a comma- or line-separated list, blanks and repeats dropped. */
function parseNames(text: string): string[] {
  return [...new Set(text.split(/[\n,]+/).map((name) => name.trim()).filter(Boolean))];
}

export function Export() {
  const { game } = useGame();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [names, setNames] = useState('');
  const [format, setFormat] = useState<Format>('ndjson');
  const [gzip, setGzip] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const eventNames = parseNames(names);

  const query = {
    from: from || undefined,
    to: to || undefined,
    event_name: eventNames,
    format,
    gzip: gzip || undefined,
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    if (from && to && from > to) {
      action.setError('The first day must not be after the last day.');
      return;
    }
    if (eventNames.length > MAX_NAMES) {
      action.setError(`At most ${MAX_NAMES} event names at once; leave the field empty to export every name.`);
      return;
    }
    const extension = `${format}${gzip ? '.gz' : ''}`;
    const file = await action.run(() =>
      download(
        api.GET('/v1/games/{game_id}/events/export', { params: { path: { game_id: game.game_id }, query }, parseAs: 'blob' }),
        `events-${game.game_id}.${extension}`,
      ),
    );
    if (file) setDone(`Downloaded ${file.fileName} (${formatBytes(file.blob.size)}).`);
  }

  const search = new URLSearchParams();
  if (query.from) search.set('from', query.from);
  if (query.to) search.set('to', query.to);
  for (const name of eventNames) search.append('event_name', name);
  search.set('format', format);
  if (gzip) search.set('gzip', 'true');
  const url = `${window.location.origin}/v1/games/${game.game_id}/events/export?${search}`;
  const command = `curl -fsS -H "Authorization: Bearer $PLAYTRACE_TOKEN" \\\n"${url}" \\\n-o events.${format}${gzip ? '.gz' : ''}`;

  const change = () => {
    setDone(null);
    action.setError(null);
  };

  return (
    <div className="export-layout">
      <Card title="Download raw events">
        <p className="hint card-intro">
          Every event as it was stored, oldest first: name, time, player, session, environment and properties. Days are UTC days
          by when each event happened; leave both empty for every event the game has.
        </p>
        <form className="form export-form" onSubmit={submit} noValidate>
          <div className="form inline export-days">
            <Field label="First day (optional)">
              <input type="date" value={from} max={to || isoDay(new Date())} onChange={(e) => (setFrom(e.target.value), change())} />
            </Field>
            <Field label="Last day (optional)">
              <input type="date" value={to} min={from || undefined} onChange={(e) => (setTo(e.target.value), change())} />
            </Field>
          </div>
          <Field
            label="Event names (optional)"
            hint={`Separated by commas or lines, at most ${MAX_NAMES}; empty exports every name.${eventNames.length > 0 ? ` ${formatNumber(eventNames.length)} chosen.` : ''}`}
          >
            <input value={names} spellCheck={false} placeholder="level_complete, purchase" onChange={(e) => (setNames(e.target.value), change())} />
          </Field>
          <fieldset className="choices export-formats">
            <legend className="field-label">Format</legend>
            {FORMATS.map((f) => (
              <label key={f.value} className={`choice${format === f.value ? ' selected' : ''}`}>
                <input type="radio" name="format" value={f.value} checked={format === f.value} onChange={() => (setFormat(f.value), change())} />
                <span>
                  <strong>{f.label}</strong>
                  <span className="hint">{f.hint}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <label className="field checkbox">
            <input type="checkbox" checked={gzip} onChange={(e) => (setGzip(e.target.checked), change())} />
            <span>Compress the file (gzip, .gz)</span>
          </label>
          <ErrorMessage error={action.error} />
          {done && (
            <p className="success" role="status">
              {done}
            </p>
          )}
          <div>
            <button type="submit" className="primary" disabled={action.busy} aria-busy={action.busy}>
              {action.busy ? 'Preparing the file…' : `Download ${format === 'csv' ? 'CSV' : 'NDJSON'}`}
            </button>
          </div>
        </form>
      </Card>
      <Card title="Large exports">
        <p className="hint card-intro">
          The browser holds the whole file in memory until it is saved. For millions of events, run the same export from a shell:
          it streams straight to disk. <code>PLAYTRACE_TOKEN</code> is a dashboard token (<code>POST /v1/auth/login</code> answers
          one); any member of the game may export.
        </p>
        <pre className="export-command">
          <code>{command}</code>
        </pre>
        <CopyButton text={command.replace(/\\\n/g, '')} label="Copy command" />
        {game.retention_days != null && (
          <p className="hint export-retention">
            This game keeps events for {formatNumber(game.retention_days)} day{game.retention_days === 1 ? '' : 's'} (Settings,
            Event retention): older ones are no longer stored.
          </p>
        )}
      </Card>
    </div>
  );
}
