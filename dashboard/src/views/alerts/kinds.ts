// The alert kinds as people read them: names, what each compares, how its threshold and
// values read. Mirrors docs/alerts.md ("What each kind compares").
import { formatMoney, formatNumber } from '../../ui/format';

export type KindId = 'crash_spike' | 'log_error_spike' | 'revenue_drop' | 'dau_drop' | 'retention_drop' | 'metric_spike' | 'metric_drop';

export interface Kind {
  id: KindId;
  label: string;
  spike: boolean;
  /** One sentence: what the rule compares and when it fires. */
  explain: string;
  /** What the "current" figure is, for result lines. */
  current: string;
  defaultThreshold: number;
  /** The rule names the metric it watches (`metric`). */
  takesMetric?: boolean;
}

export const KINDS: Kind[] = [
  {
    id: 'crash_spike',
    label: 'Crash spike',
    spike: true,
    explain:
      'Counts crash events in the last hour and fires when they reach the threshold times the hourly average of the comparison window before it.',
    current: 'crashes in the last hour',
    defaultThreshold: 2,
  },
  {
    id: 'log_error_spike',
    label: 'Log error spike',
    spike: true,
    explain:
      'Counts log events with level error or warning in the last hour and fires when they reach the threshold times the hourly average of the comparison window before it.',
    current: 'errors and warnings in the last hour',
    defaultThreshold: 2,
  },
  {
    id: 'revenue_drop',
    label: 'Revenue drop',
    spike: false,
    explain:
      'Sums purchase amounts over the last 24 hours and fires when they fall below the threshold times the daily average of the comparison window’s days before it.',
    current: 'revenue in the last 24 hours',
    defaultThreshold: 0.7,
  },
  {
    id: 'dau_drop',
    label: 'DAU drop',
    spike: false,
    explain:
      'Counts distinct active players in the last 24 hours and fires when they fall below the threshold times the daily average of the comparison window’s days before it.',
    current: 'active users in the last 24 hours',
    defaultThreshold: 0.7,
  },
  {
    id: 'retention_drop',
    label: 'Retention drop',
    spike: false,
    explain:
      'Takes the day-7 retention of the newest complete daily cohort (players first seen 8 days ago) and fires when it falls below the threshold times the average retention of the cohorts of the comparison window’s days before it.',
    current: 'day-7 retention of the newest cohort',
    defaultThreshold: 0.7,
  },
  {
    id: 'metric_spike',
    label: 'Metric spike',
    spike: true,
    takesMetric: true,
    explain:
      'Reads the chosen metric for the last complete UTC day (a retention metric: its newest complete cohort) and fires when it reaches the threshold times the daily average of the comparison window’s days before it.',
    current: 'metric’s value on the last complete day',
    defaultThreshold: 2,
  },
  {
    id: 'metric_drop',
    label: 'Metric drop',
    spike: false,
    takesMetric: true,
    explain:
      'Reads the chosen metric for the last complete UTC day (a retention metric: its newest complete cohort) and fires when it falls below the threshold times the daily average of the comparison window’s days before it.',
    current: 'metric’s value on the last complete day',
    defaultThreshold: 0.7,
  },
];

type Unit = 'count' | 'money' | 'percent' | 'seconds';

/** The metrics a metric kind can watch, as the metrics read names them. */
export const METRICS: { id: string; label: string; unit: Unit }[] = [
  { id: 'new_users', label: 'New users', unit: 'count' },
  { id: 'active_users', label: 'Active users', unit: 'count' },
  { id: 'sessions', label: 'Sessions', unit: 'count' },
  { id: 'session_length', label: 'Session length', unit: 'seconds' },
  { id: 'retention_d1', label: 'Day-1 retention', unit: 'percent' },
  { id: 'retention_d7', label: 'Day-7 retention', unit: 'percent' },
  { id: 'retention_d30', label: 'Day-30 retention', unit: 'percent' },
  { id: 'revenue', label: 'Revenue', unit: 'money' },
  { id: 'paying_users', label: 'Paying users', unit: 'count' },
  { id: 'arpdau', label: 'ARPDAU', unit: 'money' },
  { id: 'arppu', label: 'ARPPU', unit: 'money' },
  { id: 'conversion', label: 'Conversion', unit: 'percent' },
  { id: 'events', label: 'Events', unit: 'count' },
  { id: 'crashes', label: 'Crashes', unit: 'count' },
  { id: 'log_errors', label: 'Log errors', unit: 'count' },
];

export function metricOf(id: string | null | undefined) {
  return METRICS.find((m) => m.id === id) ?? { id: id ?? '', label: id ?? 'Metric', unit: 'count' as Unit };
}

/** "Crash spike", or for a metric kind "Sessions drop". */
export function ruleLabel(kindId: string, metric?: string | null): string {
  const kind = kindOf(kindId);
  if (!kind.takesMetric) return kind.label;
  return `${metricOf(metric).label} ${kind.spike ? 'spike' : 'drop'}`;
}

const FALLBACK: Kind = {
  id: 'crash_spike',
  label: 'Unknown kind',
  spike: true,
  explain: '',
  current: 'current value',
  defaultThreshold: 2,
};

export function kindOf(id: string): Kind {
  return KINDS.find((k) => k.id === id) ?? { ...FALLBACK, label: id };
}

const percentFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** The threshold as a share of the baseline: "≥ 200%" or "< 70%" (of the baseline). */
export function thresholdText(kindId: string, threshold: number): string {
  const kind = kindOf(kindId);
  const percent = percentFormat.format(threshold * 100);
  return kind.spike ? `≥ ${percent}%` : `< ${percent}%`;
}

/** A sentence for the form: when a rule with this threshold fires. */
export function thresholdSentence(kindId: string, threshold: number): string {
  if (!Number.isFinite(threshold) || threshold <= 0) return 'Enter a number above 0 (at most 1000).';
  const kind = kindOf(kindId);
  const percent = percentFormat.format(threshold * 100);
  return kind.spike
    ? `Fires when the ${kind.current} reach ${percent}% of the baseline (×${threshold}).`
    : `Fires when the ${kind.current} fall below ${percent}% of the baseline.`;
}

/** The comparison window in words, with the hours apart: ["7 days", "168 h"], ["36 hours", null]. */
export function windowParts(hours: number): [string, string | null] {
  if (hours % 24 === 0) {
    const days = hours / 24;
    return [`${days} ${days === 1 ? 'day' : 'days'}`, `${hours} h`];
  }
  return [`${hours} ${hours === 1 ? 'hour' : 'hours'}`, null];
}

/** How the baseline window is read for this kind (drop kinds round to whole days). */
export function windowSentence(kindId: string, hours: number): string {
  if (!Number.isInteger(hours) || hours < 1 || hours > 2160) return 'A whole number of hours from 1 to 2160 (90 days).';
  const kind = kindOf(kindId);
  const days = Math.max(1, Math.round(hours / 24));
  if (kind.takesMetric) return `Metric kinds use whole UTC days: the baseline is the daily average over the ${days} ${days === 1 ? 'day' : 'days'} before the last complete one.`;
  if (kind.spike) return `The baseline is the hourly average over the ${hours} hours before the last hour.`;
  return `Drop kinds use whole days: the baseline is the daily average over the ${days} ${days === 1 ? 'day' : 'days'} before.`;
}

/** A measured value with its unit for the kind (for a metric kind, its metric's unit; money in
 * the game's currency). */
export function valueText(kindId: string, value: number, metric?: string | null, currency?: string): string {
  if (kindOf(kindId).takesMetric) {
    switch (metricOf(metric).unit) {
      case 'money':
        return `${formatMoney(value, currency)} /day`;
      case 'percent':
        return `${percentFormat.format(value)}%`;
      case 'seconds':
        return `${formatNumber(value)} s`;
      default:
        return `${formatNumber(value)} /day`;
    }
  }
  switch (kindOf(kindId).id) {
    case 'crash_spike':
    case 'log_error_spike':
      return `${formatNumber(value)} /h`;
    case 'revenue_drop':
      return `${formatMoney(value, currency)} /day`;
    case 'dau_drop':
      return `${formatNumber(value)} /day`;
    case 'retention_drop':
      return `${percentFormat.format(value)}%`;
    default:
      return formatNumber(value);
  }
}

/** "+400%" / "−35.5%" / "0%". */
export function changeText(percent: number): string {
  const abs = percentFormat.format(Math.abs(percent));
  if (percent > 0) return `+${abs}%`;
  if (percent < 0) return `−${abs}%`;
  return '0%';
}

/** Whether a change goes the way this kind warns about (up for spikes, down for drops). */
export function isBadChange(kindId: string, percent: number): boolean {
  return kindOf(kindId).spike ? percent > 0 : percent < 0;
}

export const WINDOW_PRESETS: { hours: number; label: string }[] = [
  { hours: 24, label: '1 day' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '1 week' },
  { hours: 720, label: '30 days' },
];

/** The host part of a webhook URL: its path is a secret, so lists show only where it goes. */
export function webhookHost(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return url.replace(/^[a-z]+:\/\//i, '').split('/')[0];
  }
}

/** "23 Nov, 14:56" (the year only when it is not this year), for table cells whose header says
 * UTC; the full time goes in the cell's title. */
export function shortTime(iso: string): string {
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
