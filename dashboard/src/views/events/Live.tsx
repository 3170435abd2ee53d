// The newest events of the game, kept up to date: every 3 seconds the first page is read again
// and the events not shown yet are added on top. Older pages load on demand; a row opens to show
// the event's properties.
import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, messageOf, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, CopyButton, Empty, ErrorMessage, Field, WrappingName } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { EnvironmentPicker, environmentQuery, readEnvironment, useQueryState, type Environment } from '../overview/shared';

type StoredEvent = Schemas['StoredEvent'];

const PAGE = 50;
const POLL_MS = 3000;
/** Beyond this many rows the tail pauses itself (the page stays responsive). */
const MAX_ROWS = 2000;

interface Filters {
  event_name: string;
  player_id: string;
  environment: Environment;
}

interface View {
  events: StoredEvent[];
  next: string | null;
  /** Older pages were loaded: new events are added on top instead of replacing the page. */
  extended: boolean;
}

function fetchPage(gameId: string, filters: Filters, before?: string) {
  return unwrap(
    api.GET('/v1/games/{game_id}/events', {
      params: {
        path: { game_id: gameId },
        query: {
          limit: PAGE,
          before,
          event_name: filters.event_name || undefined,
          player_id: filters.player_id || undefined,
          environment: environmentQuery(filters.environment),
        },
      },
    }),
  );
}

function newestFirst(a: StoredEvent, b: StoredEvent): number {
  const byTime = Date.parse(b.occurred_at) - Date.parse(a.occurred_at);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The time of an event: just the clock for today, with the day otherwise. */
function shortTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const clock = date.toLocaleTimeString('en-GB', { timeZone: 'UTC', hour12: false });
  if (iso.slice(0, 10) === new Date().toISOString().slice(0, 10)) return clock;
  return `${date.toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' })} ${clock}`;
}

/** The view with a fresh first page merged in: new events on top, or the page itself. */
function withNewest(current: View | null, page: Schemas['RecentEvents']): View | null {
  if (!current) return current;
  const known = new Set(current.events.map((e) => e.id));
  const added = page.events.filter((e) => !known.has(e.id));
  if (added.length === 0) return current;
  const next = page.next_before ?? null;
  // Only the first page is shown, or more arrived than a page holds (the older rows would
  // leave a gap): show the fresh page.
  if (!current.extended || added.length === page.events.length) return { events: page.events, next, extended: false };
  return { ...current, events: [...added, ...current.events].sort(newestFirst) };
}

function preview(properties: unknown): string {
  if (properties === null || properties === undefined) return '';
  const text = JSON.stringify(properties);
  if (text === '{}') return '';
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
}

export function Live() {
  const { game } = useGame();
  const gameId = game.game_id;
  const [params, setParams] = useQueryState();
  const filters: Filters = {
    event_name: params.get('event_name') ?? '',
    player_id: params.get('player_id') ?? '',
    environment: readEnvironment(params.get('environment')),
  };
  const filterKey = `${filters.event_name}\u0000${filters.player_id}\u0000${filters.environment}`;

  // The form's own copy of the filters, applied on submit.
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filterKey]); // eslint-disable-line react-hooks/exhaustive-deps

  const first = useLoad(() => fetchPage(gameId, filters), [gameId, filterKey]);
  const [view, setView] = useState<View | null>(null);
  const viewRef = useRef<View | null>(null);
  viewRef.current = view;
  const [paused, setPaused] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [pollError, setPollError] = useState<string | null>(null);
  const [lastChecked, setLastChecked] = useState<Date | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [fresh, setFresh] = useState<Set<string>>(() => new Set());
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [older, setOlder] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  // Bumped whenever the filters change, so answers for the old filters are dropped.
  const generation = useRef(0);

  useEffect(() => {
    generation.current += 1;
    setView(null);
    setNotice(null);
    setPollError(null);
    setFresh(new Set());
  }, [gameId, filterKey]);

  useEffect(() => {
    if (!first.data) return;
    setView({ events: first.data.events, next: first.data.next_before ?? null, extended: false });
    setLastChecked(new Date());
  }, [first.data]);

  const ready = view !== null;
  useEffect(() => {
    if (paused || !ready) return;
    let busy = false;
    const timer = window.setInterval(async () => {
      if (busy || document.hidden) return;
      busy = true;
      const mine = generation.current;
      try {
        const page = await fetchPage(gameId, filters);
        if (mine !== generation.current) return;
        setPollError(null);
        setLastChecked(new Date());
        const current = viewRef.current;
        if (!current) return;
        const known = new Set(current.events.map((e) => e.id));
        const added = page.events.filter((e) => !known.has(e.id));
        if (added.length === 0) return;
        markFresh(added.map((e) => e.id));
        setAnnouncement(`${added.length} new ${added.length === 1 ? 'event' : 'events'}`);
        const gap = current.extended && current.events.length > 0 && added.length === page.events.length;
        if (gap) setNotice(`More than ${PAGE} events arrived at once; the list restarted from the newest ones.`);
        else if (current.extended && current.events.length + added.length > MAX_ROWS) {
          setPaused(true);
          setNotice(`Paused at ${formatNumber(MAX_ROWS)} events shown. Resume to jump back to the newest events.`);
        }
        setView((latest) => withNewest(latest, page));
      } catch (e) {
        if (mine === generation.current) setPollError(messageOf(e));
      } finally {
        busy = false;
      }
    }, POLL_MS);
    return () => window.clearInterval(timer);
  }, [paused, ready, gameId, filterKey]); // eslint-disable-line react-hooks/exhaustive-deps

  function markFresh(ids: string[]) {
    setFresh((current) => new Set([...current, ...ids]));
    window.setTimeout(() => {
      setFresh((current) => {
        const next = new Set(current);
        for (const id of ids) next.delete(id);
        return next;
      });
    }, 4000);
  }

  async function loadOlder() {
    if (!view?.next) return;
    const mine = generation.current;
    setOlder({ busy: true, error: null });
    try {
      const page = await fetchPage(gameId, filters, view.next);
      if (mine !== generation.current) return;
      setView((current) => {
        if (!current) return current;
        const known = new Set(current.events.map((e) => e.id));
        return { events: [...current.events, ...page.events.filter((e) => !known.has(e.id))], next: page.next_before ?? null, extended: true };
      });
      setOlder({ busy: false, error: null });
    } catch (e) {
      setOlder({ busy: false, error: messageOf(e) });
    }
  }

  function resume() {
    setNotice(null);
    if (view && view.events.length >= MAX_ROWS) {
      // Start again from the newest page.
      first.reload();
    }
    setPaused(false);
  }

  function applyFilters(e: FormEvent) {
    e.preventDefault();
    setParams({ event_name: draft.event_name.trim(), player_id: draft.player_id.trim(), environment: draft.environment });
  }

  function toggle(id: string) {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  const filtered = Boolean(filters.event_name || filters.player_id || filters.environment);

  return (
    <>
      <form className="toolbar" onSubmit={applyFilters} aria-label="Filter events">
        <Field label="Event name">
          <input value={draft.event_name} maxLength={128} placeholder="Any" onChange={(e) => setDraft({ ...draft, event_name: e.target.value })} />
        </Field>
        <Field label="Player ID">
          <input value={draft.player_id} maxLength={128} placeholder="Any" onChange={(e) => setDraft({ ...draft, player_id: e.target.value })} />
        </Field>
        <EnvironmentPicker value={draft.environment} onChange={(environment) => setDraft({ ...draft, environment })} />
        <div className="toolbar-buttons">
          <button type="submit" className="primary">
            Filter
          </button>
          {filtered && (
            <button type="button" onClick={() => setParams({ event_name: null, player_id: null, environment: null })}>
              Clear filters
            </button>
          )}
        </div>
      </form>

      <Card
        title="Newest events"
        actions={
          <div className="live-status">
            <span className={`live-dot${paused ? ' paused' : ''}`} aria-hidden="true" />
            <span className="hint">
              {paused ? 'Paused' : 'Live, every 3 s'}
              {lastChecked && ` · checked ${lastChecked.toLocaleTimeString('en-GB', { hour12: false })}`}
            </span>
            <button type="button" className="small" aria-pressed={paused} onClick={() => (paused ? resume() : setPaused(true))}>
              {paused ? 'Resume' : 'Pause'}
            </button>
          </div>
        }
      >
        <div className="visually-hidden" aria-live="polite">
          {announcement}
        </div>
        {notice && <p className="notice">{notice}</p>}
        {pollError && <ErrorMessage error={`Could not check for new events: ${pollError}`} />}
        <Async state={{ ...first, data: view ?? undefined }}>
          {(data) =>
            data.events.length === 0 ? (
              filtered ? (
                <Empty title="No events match these filters">
                  New matching events appear here as they arrive. Check the spelling, or clear the filters.
                </Empty>
              ) : (
                <Empty title="No events yet">
                  Events appear here within seconds of arriving. See the <Link to={`/games/${gameId}`}>overview</Link> for how to send
                  the first one.
                </Empty>
              )
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table live-table" aria-label="Events">
                    <thead>
                      <tr>
                        <th scope="col">Time (UTC)</th>
                        <th scope="col">Event</th>
                        <th scope="col">Player</th>
                        <th scope="col" className="hide-narrow">
                          Session
                        </th>
                        <th scope="col" className="hide-narrow">
                          Env.
                        </th>
                        <th scope="col" className="hide-narrow">
                          Properties
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.events.map((event) => {
                        const open = expanded.has(event.id);
                        const detailId = `event-${event.id}`;
                        return (
                          <Fragment key={event.id}>
                            <tr className={`${fresh.has(event.id) ? 'fresh' : ''}${open ? ' open' : ''}`}>
                              <td className="nowrap" title={formatTime(event.occurred_at)}>
                                {shortTime(event.occurred_at)}
                              </td>
                              <td>
                                <button type="button" className="row-toggle" aria-expanded={open} aria-controls={open ? detailId : undefined} onClick={() => toggle(event.id)}>
                                  <span className="caret" aria-hidden="true">
                                    ▸
                                  </span>
                                  <WrappingName name={event.event_name} />
                                </button>
                              </td>
                              <td className="mono-cell">{event.player_id ?? <span className="hint">anonymous</span>}</td>
                              <td className="mono-cell hide-narrow">{event.session_id}</td>
                              <td className="hide-narrow">
                                <Badge tone={event.environment === 'production' ? 'good' : 'neutral'}>{event.environment === 'production' ? 'prod' : 'dev'}</Badge>
                              </td>
                              <td className="hide-narrow props-preview">
                                <code>{preview(event.properties)}</code>
                              </td>
                            </tr>
                            {open && (
                              <tr className="detail-row" id={detailId}>
                                <td colSpan={6}>
                                  <EventDetail event={event} />
                                </td>
                              </tr>
                            )}
                          </Fragment>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
                <div className="pager">
                  <span className="hint">
                    {formatNumber(data.events.length)} {data.events.length === 1 ? 'event' : 'events'} shown
                  </span>
                  {data.next ? (
                    <button type="button" onClick={loadOlder} disabled={older.busy} aria-busy={older.busy}>
                      {older.busy ? 'Loading…' : 'Load older'}
                    </button>
                  ) : (
                    <span className="hint">· That is the oldest event.</span>
                  )}
                </div>
                <ErrorMessage error={older.error} onRetry={loadOlder} />
              </>
            )
          }
        </Async>
      </Card>
    </>
  );
}

function EventDetail({ event }: { event: StoredEvent }) {
  const json = JSON.stringify(event.properties ?? {}, null, 2);
  return (
    <div className="event-detail">
      <dl className="event-facts">
        <div>
          <dt>Happened</dt>
          <dd>{formatTime(event.occurred_at)}</dd>
        </div>
        <div>
          <dt>Received</dt>
          <dd>{formatTime(event.received_at)}</dd>
        </div>
        <div>
          <dt>Player</dt>
          <dd>{event.player_id ?? '—'}</dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd>{event.session_id}</dd>
        </div>
        <div>
          <dt>Environment</dt>
          <dd>{event.environment}</dd>
        </div>
        <div>
          <dt>Client event ID</dt>
          <dd>{event.event_id ?? '—'}</dd>
        </div>
      </dl>
      <div className="event-json">
        <div className="event-json-header">
          <strong>Properties</strong>
          <CopyButton text={json} label="Copy JSON" />
        </div>
        <pre aria-label={`Properties of ${event.event_name}`}>
          <code>{json}</code>
        </pre>
      </div>
    </div>
  );
}
