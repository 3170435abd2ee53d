// Paging through a long list: "26–30 of 30" with Previous and Next, the page kept in the
// address (`?page=`).
import { useSearchParams } from 'react-router';
import { formatNumber } from '../../ui/format';

/** The 1-based page in the address and a setter. */
export function usePage(): [number, (page: number) => void] {
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get('page') ?? '1');
  const page = Number.isInteger(raw) && raw > 0 ? raw : 1;
  return [
    page,
    (next) => {
      const copy = new URLSearchParams(params);
      if (next > 1) copy.set('page', String(next));
      else copy.delete('page');
      setParams(copy);
    },
  ];
}

export function Pager({
  page,
  pageSize,
  total,
  onPage,
  noun = 'entries',
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
  noun?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="pager" aria-label="Pages">
      <span className="hint" aria-live="polite">
        {formatNumber(first)}–{formatNumber(last)} of {formatNumber(total)} {noun}
        {pages > 1 && ` · page ${formatNumber(page)} of ${formatNumber(pages)}`}
      </span>
      {pages > 1 && (
        <>
          <button type="button" className="small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
            Previous
          </button>
          <button type="button" className="small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
            Next
          </button>
        </>
      )}
    </nav>
  );
}
