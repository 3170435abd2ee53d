// Cloud saves, for support: find a player by id, list their slots, read a slot's data and
// delete a slot. The player and slot are in the address (?player=&slot=), so a link to a
// player's save can be shared with a teammate.
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, CopyButton, Empty, ErrorMessage, Field, Loading, PageHeader } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import './saves.css';

type SlotInfo = Schemas['SlotList']['saves'][number];

/** The API's player id rule (src/player.rs), in the API's own words: 1 to 128 characters
 * (code points, as the server counts them) of any text but NUL. */
export function playerIdProblem(id: string): string | null {
  const length = [...id].length;
  if (length < 1 || length > 128) return 'player_id must be 1 to 128 characters';
  if (id.includes('\0')) return 'player_id must not contain NUL characters';
  return null;
}

/** "23 Nov, 14:56" (the year only when it is not this year): short enough for the slot table,
 * whose header says UTC; the full time is the cell's title. */
function shortTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const thisYear = date.getUTCFullYear() === new Date().getUTCFullYear();
  return date.toLocaleString('en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: thisYear ? undefined : 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

export default function Saves() {
  const { game, canEdit } = useGame();
  const [params, setParams] = useSearchParams();
  const player = params.get('player') ?? '';
  const slot = params.get('slot') ?? '';
  const [input, setInput] = useState(player);
  const [flash, setFlash] = useState<string | null>(null);
  const problem = player ? playerIdProblem(player) : null;

  useEffect(() => setInput(player), [player]);

  const slots = useLoad(
    () =>
      player && !problem
        ? unwrap(api.GET('/v1/games/{game_id}/saves/{player_id}', { params: { path: { game_id: game.game_id, player_id: player } } }))
        : Promise.resolve(null),
    [game.game_id, player],
  );

  function select(next: { player?: string; slot?: string }) {
    const values: Record<string, string> = {};
    const p = next.player ?? player;
    if (p) values.player = p;
    if (next.slot) values.slot = next.slot;
    setParams(values);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    setFlash(null);
    const id = input.trim();
    setInput(id);
    // The same id again still reloads (the saves may have changed since).
    if (id === player) slots.reload();
    select({ player: id });
  }

  return (
    <>
      <PageHeader title="Cloud saves" />
      <Card title="Find a player">
        <form className="form inline sv-search" onSubmit={submit} role="search">
          <Field label="Player id">
            <input
              value={input}
              onChange={(e) => setInput(e.target.value)}
              required
              placeholder="steam:76561198000000000"
              spellCheck={false}
              autoCapitalize="off"
              autoCorrect="off"
              aria-invalid={problem !== null}
            />
          </Field>
          <button type="submit" className="primary">
            Find saves
          </button>
        </form>
        <p className="hint sv-rule">The id your game sends to the save API: 1 to 128 characters, exactly as sent (case-sensitive).</p>
        <ErrorMessage error={problem} />
      </Card>
      {flash && (
        <p className="success" role="status">
          {flash}
        </p>
      )}
      {!player ? (
        <Card>
          <Empty title="Look up a player">Enter a player id above to see their save slots, read a slot’s data or delete a slot.</Empty>
        </Card>
      ) : problem ? null : (
        <Async state={slots}>
          {(list) =>
            list && list.player_id === player ? (
              list.saves.length === 0 ? (
                <Card>
                  <Empty title={`No saves for “${player}”`}>
                    This player has no cloud saves in {game.name}. Player ids are case-sensitive: check that it is the id your
                    game sends.
                  </Empty>
                </Card>
              ) : (
                <div className="sv-layout">
                  <SlotList player={player} saves={list.saves} selected={slot} onSelect={(s) => select({ slot: s })} />
                  {slot ? (
                    <SlotView
                      key={`${player}/${slot}`}
                      gameId={game.game_id}
                      player={player}
                      slot={slot}
                      canEdit={canEdit}
                      onDeleted={() => {
                        setFlash(`Slot “${slot}” of ${player} deleted.`);
                        select({});
                        slots.reload();
                      }}
                    />
                  ) : (
                    <Card>
                      <Empty title="Choose a slot">Select a slot to read its data.</Empty>
                    </Card>
                  )}
                </div>
              )
            ) : (
              <Loading label="Finding saves…" />
            )
          }
        </Async>
      )}
    </>
  );
}

function SlotList({
  player,
  saves,
  selected,
  onSelect,
}: {
  player: string;
  saves: SlotInfo[];
  selected: string;
  onSelect(slot: string): void;
}) {
  return (
    <Card title={`Slots of ${player}`} actions={<Badge>{saves.length === 1 ? '1 slot' : `${saves.length} slots`}</Badge>}>
      <div className="table-wrap">
        <table className="table compact sv-slots">
          <thead>
            <tr>
              <th scope="col">Slot</th>
              <th scope="col" className="num">
                Version
              </th>
              <th scope="col" className="num">
                Size
              </th>
              <th scope="col">Updated (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {saves.map((s) => (
              <tr key={s.slot} className={s.slot === selected ? 'sv-selected' : undefined} onClick={() => onSelect(s.slot)}>
                <th scope="row">
                  <button
                    type="button"
                    className="link sv-slot"
                    aria-pressed={s.slot === selected}
                    onClick={(e) => {
                      e.stopPropagation();
                      onSelect(s.slot);
                    }}
                  >
                    {s.slot}
                  </button>
                </th>
                <td className="num">{formatNumber(s.version)}</td>
                <td className="num">{formatBytes(s.size_bytes)}</td>
                <td className="sv-time" title={formatTime(s.updated_at)}>
                  {shortTime(s.updated_at)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

function SlotView({
  gameId,
  player,
  slot,
  canEdit,
  onDeleted,
}: {
  gameId: string;
  player: string;
  slot: string;
  canEdit: boolean;
  onDeleted(): void;
}) {
  const save = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/saves/{player_id}/{slot}', { params: { path: { game_id: gameId, player_id: player, slot } } })),
    [gameId, player, slot],
  );
  const remove = useAction();

  async function deleteSlot() {
    const done = await remove.run(async () => {
      await unwrap(
        api.DELETE('/v1/games/{game_id}/saves/{player_id}/{slot}', { params: { path: { game_id: gameId, player_id: player, slot } } }),
      );
      return true;
    });
    if (done) onDeleted();
  }

  return (
    <Card title={`Slot “${slot}”`}>
      <Async state={save}>
        {(data) => {
          const text = JSON.stringify(data.data, null, 2);
          return (
            <>
              <dl className="sv-meta">
                <div>
                  <dt>Version</dt>
                  <dd>{formatNumber(data.version)}</dd>
                </div>
                <div>
                  <dt>Updated</dt>
                  <dd>{formatTime(data.updated_at)}</dd>
                </div>
              </dl>
              <pre className="sv-data" tabIndex={0} aria-label={`Data of slot ${slot}`}>
                {text}
              </pre>
              <ErrorMessage error={remove.error} />
              <div className="row-actions sv-actions">
                <CopyButton text={text} label="Copy JSON" />
                {canEdit && (
                  <ConfirmButton
                    label="Delete slot"
                    title={`Delete slot “${slot}”?`}
                    message={
                      <>
                        The save of <strong>{player}</strong> in slot <strong>{slot}</strong> is removed for good. The game
                        will find no save there and start this slot again at version 1.
                      </>
                    }
                    confirmLabel="Delete slot"
                    onConfirm={deleteSlot}
                  />
                )}
              </div>
            </>
          );
        }}
      </Async>
    </Card>
  );
}
