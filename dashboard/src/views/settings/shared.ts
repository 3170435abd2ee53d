// Words shared by the settings pages, the games list and the admin page: tiers, roles,
// validation modes, player sign-in modes, and the signal that the list of games changed.

export const TIERS: { value: string; label: string; quota: number }[] = [
  { value: 'free', label: 'Free', quota: 100_000 },
  { value: 'indie', label: 'Indie', quota: 1_000_000 },
  { value: 'studio', label: 'Studio', quota: 10_000_000 },
];

export function tierLabel(tier: string): string {
  return TIERS.find((t) => t.value === tier)?.label ?? tier;
}

export const ROLES: { value: string; label: string; description: string }[] = [
  { value: 'owner', label: 'Owner', description: 'Everything, plus members, API keys, settings and deleting the game.' },
  { value: 'editor', label: 'Editor', description: 'Reads everything and edits definitions: leaderboards, achievements, funnels, alerts, config.' },
  { value: 'viewer', label: 'Viewer', description: 'Reads reports and data; changes nothing.' },
];

export function roleLabel(role: string): string {
  return ROLES.find((r) => r.value === role)?.label ?? role;
}

export const VALIDATION_MODES: { value: string; label: string; description: string }[] = [
  { value: 'off', label: 'Off', description: 'Event schemas are not checked. Every event is stored.' },
  {
    value: 'warn',
    label: 'Warn',
    description: 'Every event is stored; the answer to /v1/track lists the events that break their schema.',
  },
  {
    value: 'enforce',
    label: 'Enforce',
    description: 'A request with any event that breaks its schema is refused (400); nothing of it is stored or counted.',
  },
];

/** How a game tells its players apart (`player_auth`). */
export const PLAYER_AUTH_MODES: { value: string; label: string; description: string }[] = [
  { value: 'off', label: 'Off', description: 'The game key alone acts as any player: whoever has the key can save, score and send events as anyone.' },
  {
    value: 'optional',
    label: 'Optional',
    description: 'Player tokens are issued; a request with one acts only as its player. Requests without one work as before.',
  },
  {
    value: 'required',
    label: 'Required',
    description:
      'Player-scoped calls (saves, scores, unlocks, presence, events) need a player token. Boards, achievement lists and remote config stay open to the key.',
  },
];

/** The per-player rate limit when the game sets none. */
export const DEFAULT_PLAYER_RATE_LIMIT = 120;

import { GAMES_CHANGED } from '../../Shell';

/** Lets lists of games held elsewhere (the sidebar's switcher) load again. */
export function announceGamesChanged(): void {
  window.dispatchEvent(new Event(GAMES_CHANGED));
}

/** A day as "23 Nov 2026" (UTC), for "created" and "added" columns. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' });
}
