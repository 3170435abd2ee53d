// The form that defines a leaderboard (create) or changes one (edit): which score is better,
// what a score does to the player's entry (the operator), the period or a cron reset schedule
// (with its next resets, as the server computes them), a one-time reset for all-time boards,
// the score bounds and, optionally, a tournament (time window, player limit, joining).
import { useEffect, useState, type FormEvent } from 'react';
import { api, messageOf, unwrap, type Schemas } from '../../api/client';
import { formatTime } from '../../ui/format';
import { ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { OPERATORS, ORDERS, PERIODS, SCHEDULE_CHOICE, fromUtcInput, periodKeyLabel, toUtcInput, type Board } from './shared';

export interface DefinitionValues {
  board_name: string;
  order: Schemas['ScoreOrder'];
  operator: Schemas['ScoreOperator'];
  /** `all_time` when the board resets on `reset_schedule`. */
  period: Schemas['ResetPeriod'];
  /** A 5-field cron expression (UTC) the board resets at instead of its period; null: none. */
  reset_schedule: string | null;
  /** RFC 3339 or null (none). */
  auto_reset_at: string | null;
  min_score: number | null;
  max_score: number | null;
  /** Tournament settings: RFC 3339 or null, a limit or null, and whether players must join. */
  starts_at: string | null;
  ends_at: string | null;
  max_players: number | null;
  join_required: boolean;
  /** Where the final standings go when a period or tournament ends; null: nowhere. */
  results_webhook: string | null;
}

function scoreText(value: number | null | undefined): string {
  return value == null ? '' : String(value);
}

/** The next resets of a cron expression, asked of the server as it is typed (after a pause). */
function useSchedulePreview(gameId: string, expression: string, active: boolean): { next: string[]; error: string | null } {
  const [preview, setPreview] = useState<{ next: string[]; error: string | null }>({ next: [], error: null });
  useEffect(() => {
    const text = expression.trim();
    if (!active || text === '') {
      setPreview({ next: [], error: null });
      return;
    }
    let current = true;
    const timer = window.setTimeout(() => {
      unwrap(api.GET('/v1/games/{game_id}/leaderboard-schedule', { params: { path: { game_id: gameId }, query: { reset_schedule: text } } }))
        .then((answer) => current && setPreview({ next: answer.next_resets, error: null }))
        .catch((error: unknown) => current && setPreview({ next: [], error: messageOf(error) }));
    }, 300);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [gameId, expression, active]);
  return preview;
}

export function DefinitionForm({
  gameId,
  board,
  busy,
  error,
  submitLabel,
  onSave,
  onCancel,
}: {
  gameId: string;
  /** The board being changed; absent when defining a new one. */
  board?: Board;
  busy: boolean;
  error: string | null;
  submitLabel: string;
  onSave(values: DefinitionValues): Promise<unknown>;
  onCancel?(): void;
}) {
  const [name, setName] = useState(board?.board_name ?? '');
  const [order, setOrder] = useState(board?.order ?? 'higher');
  const [operator, setOperator] = useState(board?.operator ?? 'best');
  const [period, setPeriod] = useState<string>(board?.reset_schedule ? SCHEDULE_CHOICE : (board?.period ?? 'all_time'));
  const [schedule, setSchedule] = useState(board?.reset_schedule ?? '');
  const scheduled = period === SCHEDULE_CHOICE;
  const preview = useSchedulePreview(gameId, schedule, scheduled);
  const [resetAt, setResetAt] = useState(toUtcInput(board?.auto_reset_at));
  const [min, setMin] = useState(scoreText(board?.min_score));
  const [max, setMax] = useState(scoreText(board?.max_score));
  const tournament = board?.tournament ?? null;
  const [startsAt, setStartsAt] = useState(toUtcInput(tournament?.starts_at));
  const [endsAt, setEndsAt] = useState(toUtcInput(tournament?.ends_at));
  const [maxPlayers, setMaxPlayers] = useState(tournament?.max_players == null ? '' : String(tournament.max_players));
  const [joinRequired, setJoinRequired] = useState(tournament?.join_required ?? false);
  const [webhook, setWebhook] = useState(board?.results_webhook ?? '');
  const [problem, setProblem] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const minScore = min.trim() === '' ? null : Number(min);
    const maxScore = max.trim() === '' ? null : Number(max);
    if ((minScore !== null && !Number.isFinite(minScore)) || (maxScore !== null && !Number.isFinite(maxScore))) {
      setProblem('Score bounds must be numbers.');
      return;
    }
    if (minScore !== null && maxScore !== null && minScore > maxScore) {
      setProblem('The minimum score cannot be above the maximum score.');
      return;
    }
    const limit = maxPlayers.trim() === '' ? null : Number(maxPlayers);
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000)) {
      setProblem('The player limit must be a whole number from 1 to 1,000,000.');
      return;
    }
    if (startsAt && endsAt && fromUtcInput(endsAt) <= fromUtcInput(startsAt)) {
      setProblem('The tournament must end after it starts.');
      return;
    }
    if (scheduled && schedule.trim() === '') {
      setProblem('Enter a reset schedule, e.g. 0 18 * * FRI (every Friday 18:00 UTC).');
      return;
    }
    setProblem(null);
    await onSave({
      board_name: name.trim(),
      order,
      operator,
      period: scheduled ? 'all_time' : (period as Schemas['ResetPeriod']),
      reset_schedule: scheduled ? schedule.trim() : null,
      auto_reset_at: period === 'all_time' && resetAt ? fromUtcInput(resetAt) : null,
      min_score: minScore,
      max_score: maxScore,
      starts_at: startsAt ? fromUtcInput(startsAt) : null,
      ends_at: endsAt ? fromUtcInput(endsAt) : null,
      max_players: limit,
      join_required: joinRequired,
      results_webhook: webhook.trim() || null,
    });
  }

  const periodHint = scheduled
    ? 'The board starts over at every firing of a cron expression, read in UTC, at most once an hour.'
    : PERIODS.find((p) => p.value === period)?.hint;
  const periodChanges =
    board !== undefined && (scheduled ? (board.reset_schedule ?? '') !== schedule.trim() : board.period !== period || Boolean(board.reset_schedule));

  return (
    <form onSubmit={submit} className="form lb-definition-form">
      {!board && (
        <Field label="Board name" hint="How the game names it when submitting scores, e.g. arena or speedrun-level-1.">
          <input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} placeholder="arena" autoComplete="off" />
        </Field>
      )}
      <div className="lb-form-row">
        <Field label="Better score">
          <select value={order} onChange={(e) => setOrder(e.target.value as Schemas['ScoreOrder'])}>
            {ORDERS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Each score" hint={OPERATORS.find((o) => o.value === operator)?.hint}>
          <select value={operator} onChange={(e) => setOperator(e.target.value as Schemas['ScoreOperator'])}>
            {OPERATORS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {board && <p className="hint lb-bounds-hint">Which score is better and what each score does can change only while the board has no entries.</p>}
      <div className="lb-form-row">
        <Field label="Period" hint={periodHint}>
          <select value={period} onChange={(e) => setPeriod(e.target.value)}>
            {PERIODS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
            <option value={SCHEDULE_CHOICE}>Reset schedule (cron, UTC)</option>
          </select>
        </Field>
        {scheduled && (
          <Field label="Reset schedule (cron, UTC)" hint="minute hour day-of-month month day-of-week, e.g. 0 18 * * FRI: every Friday 18:00 UTC.">
            <input required value={schedule} onChange={(e) => setSchedule(e.target.value)} placeholder="0 18 * * FRI" autoComplete="off" spellCheck={false} />
          </Field>
        )}
      </div>
      {scheduled && preview.error && <p className="error lb-schedule-preview">{preview.error}</p>}
      {scheduled && preview.next.length > 0 && (
        <p className="hint lb-schedule-preview" aria-live="polite">
          Next reset: {formatTime(preview.next[0])}
          {preview.next.length > 1 && `, then ${preview.next.slice(1).map(formatTime).join(', ')}`}
        </p>
      )}
      {periodChanges && (
        <p className="notice">
          Changing the period takes effect at once: the current standings ({periodKeyLabel(board.current_period)}) become an archived period
          and a new, empty period starts.
        </p>
      )}
      {period === 'all_time' && (
        <Field
          label="One-time reset (UTC, optional)"
          hint='At this moment (UTC) the all-time board starts over, once. Earlier scores stay readable as the finished "All time" period; later ones form a new period. Leave empty to never reset.'
        >
          <input type="datetime-local" value={resetAt} onChange={(e) => setResetAt(e.target.value)} />
        </Field>
      )}
      <div className="lb-form-row">
        <Field label="Minimum score (optional)">
          <input type="number" step="any" inputMode="decimal" value={min} onChange={(e) => setMin(e.target.value)} placeholder="No minimum" />
        </Field>
        <Field label="Maximum score (optional)">
          <input type="number" step="any" inputMode="decimal" value={max} onChange={(e) => setMax(e.target.value)} placeholder="No maximum" />
        </Field>
      </div>
      <p className="hint lb-bounds-hint">
        Scores outside the bounds are held as suspicious: they stay off the board until a moderator approves them in the Moderation tab.
      </p>
      <fieldset className="lb-tournament">
        <legend>Tournament (optional)</legend>
        <p className="hint">
          Any of these makes the board a tournament: scores only between the start and the end, from at most so many players, and only from
          players who joined (<code>POST /v1/leaderboards/{'{board}'}/join</code>) when joining is required.
        </p>
        <div className="lb-form-row lb-form-row-3">
          <Field label="Starts (UTC)">
            <input type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
          </Field>
          <Field label="Ends (UTC)">
            <input type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} />
          </Field>
          <Field label="Player limit">
            <input type="number" inputMode="numeric" value={maxPlayers} onChange={(e) => setMaxPlayers(e.target.value)} placeholder="No limit" />
          </Field>
        </div>
        <label className="field checkbox">
          <input type="checkbox" checked={joinRequired} onChange={(e) => setJoinRequired(e.target.checked)} /> Players must join before they can submit
          scores
        </label>
      </fieldset>
      <Field
        label="Results webhook (optional)"
        hint="When a period or the tournament ends, its final standings are POSTed here once (retried until your server answers 2xx), to grant rewards."
      >
        <input type="url" value={webhook} onChange={(e) => setWebhook(e.target.value)} placeholder="https://game.example.com/hooks/leaderboard-results" autoComplete="off" spellCheck={false} />
      </Field>
      <ErrorMessage error={problem ?? error} />
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
