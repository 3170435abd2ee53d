import { useEffect, type ReactNode } from 'react';

/** The centred card of the signed-out pages. */
export function AuthFrame({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · playtrace`;
  }, [title]);
  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <div className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          playtrace
        </div>
        <h1>{title}</h1>
        {children}
      </div>
      {footer && <div className="auth-footer">{footer}</div>}
    </main>
  );
}
