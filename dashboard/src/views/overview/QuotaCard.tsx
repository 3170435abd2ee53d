// This month's event quota: how much of the tier's monthly events the game has used.
import { Link } from 'react-router';
import type { Schemas } from '../../api/client';
import { Async, Badge, Card } from '../../ui/components';
import { formatNumber } from '../../ui/format';
import type { Loaded } from '../../ui/useLoad';

type Usage = Schemas['QuotaUsage'];

function monthName(month: string): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? month : date.toLocaleDateString('en-GB', { timeZone: 'UTC', month: 'long', year: 'numeric' });
}

/** The first day of the month after `month` (YYYY-MM), as "1 December". */
function resetDay(month: string): string {
  const [year, m] = month.split('-').map(Number);
  if (!year || !m) return 'the 1st';
  const next = new Date(Date.UTC(year, m, 1));
  return next.toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long' });
}

export function QuotaCard({ usage, gameId }: { usage: Loaded<Usage>; gameId: string }) {
  return (
    <Card title="Event quota this month">
      <Async state={usage}>{(u) => <QuotaBar usage={u} gameId={gameId} />}</Async>
    </Card>
  );
}

function QuotaBar({ usage, gameId }: { usage: Usage; gameId: string }) {
  const share = usage.limit > 0 ? Math.min(100, (usage.used / usage.limit) * 100) : 100;
  const tone = share >= 100 ? 'bad' : share >= 80 ? 'warn' : 'good';
  const label = `${formatNumber(usage.used)} of ${formatNumber(usage.limit)} events this month`;
  return (
    <div className="quota">
      <div className="quota-line">
        <strong className="quota-figure">
          {formatNumber(usage.used)} of {formatNumber(usage.limit)} events this month
        </strong>
        <span className="quota-tier">
          <Badge tone={tone === 'good' ? 'neutral' : tone}>{usage.tier} tier</Badge>
        </span>
      </div>
      <div
        className={`quota-bar quota-${tone}`}
        role="progressbar"
        aria-label="Event quota used this month"
        aria-valuemin={0}
        aria-valuemax={usage.limit}
        aria-valuenow={Math.min(usage.used, usage.limit)}
        aria-valuetext={`${label} (${share < 1 && usage.used > 0 ? '< 1' : Math.round(share)}%)`}
      >
        <span style={{ width: `${share}%` }} />
      </div>
      <p className="hint quota-hint">
        {monthName(usage.month)} (UTC): {formatNumber(usage.remaining)} left, {share < 1 && usage.used > 0 ? 'under 1' : Math.round(share)}% used. The
        count starts again on {resetDay(usage.month)}. Development and production keys share it.
        {tone === 'bad' && (
          <>
            {' '}
            <strong>New events are refused (429) until then.</strong> Ask your instance admin for a higher tier, or see{' '}
            <Link to={`/games/${gameId}/settings`}>Settings</Link>.
          </>
        )}
        {tone === 'warn' && <> Close to the limit: once it is reached, new events are refused until the month ends.</>}
      </p>
    </div>
  );
}
