import type { ReactNode } from 'react';

/** Placeholder: the sidebar and the top bar (001 §2 'App shell') are built by the shell work. */
export function AppShell({ children }: { children: ReactNode }) {
  return <div className="app-shell">{children}</div>;
}
