// How numbers, dates and ranges read in the dashboard.
const number = new Intl.NumberFormat('en-US');
// Amounts always show cents ("352.40", not "352.4"), so a column of them lines up.
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
// Every digit a number was sent with (a speedrun's 61.2345 s is not rounded to 61.235).
const exact = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : number.format(value);
}

const currencies = new Map<string, Intl.NumberFormat>();

/** The formatter of a game's currency (an ISO 4217 code), always with two decimals, even for
 * currencies written without (JPY): amounts are sums and averages, whose cents matter. */
function currencyFormat(currency: string): Intl.NumberFormat {
  let format = currencies.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    } catch {
      format = money;
    }
    currencies.set(currency, format);
  }
  return format;
}

/** An amount of money: "$352.40" with the game's currency, "352.40" without one. */
export function formatMoney(value: number | null | undefined, currency?: string): string {
  if (value === null || value === undefined) return '—';
  return currency ? currencyFormat(currency).format(value) : money.format(value);
}

export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${percent.format(value)}%`;
}

/** A number with thousands separators and all of its decimals, e.g. a leaderboard score. */
export function formatExact(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : exact.format(value);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { timeZone: 'UTC' }) + ' UTC';
}

export function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
}

export function formatHour(iso: string): string {
  const date = new Date(iso);
  return `${formatDay(iso)} ${String(date.getUTCHours()).padStart(2, '0')}:00`;
}

export type RangeKey = '1d' | '7d' | '30d' | '90d';

/** The report ranges offered everywhere: whole UTC days ending today. */
export const RANGES: { key: RangeKey; label: string; days: number }[] = [
  { key: '1d', label: 'Today', days: 1 },
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '30d', label: 'Last 30 days', days: 30 },
  { key: '90d', label: 'Last 90 days', days: 90 },
];

export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The `from`/`to` query values (`YYYY-MM-DD`, UTC, both included) of a preset range. */
export function rangeBounds(key: RangeKey, now = new Date()): { from: string; to: string } {
  const days = RANGES.find((r) => r.key === key)?.days ?? 7;
  const from = new Date(now.getTime() - (days - 1) * 86_400_000);
  return { from: isoDay(from), to: isoDay(now) };
}
