// An achievement's icon, or its initial on a tinted tile when there is none (or it fails to load).
import { useEffect, useState } from 'react';

export function AchievementIcon({ url, name }: { url: string; name: string }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [url]);
  if (url && !failed) {
    return <img className="ach-icon" src={url} alt="" width={36} height={36} loading="lazy" onError={() => setFailed(true)} />;
  }
  return (
    <span className="ach-icon ach-icon-empty" aria-hidden="true">
      {(name.trim()[0] ?? '?').toUpperCase()}
    </span>
  );
}
