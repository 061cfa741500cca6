import { toggleTheme, useTheme } from './theme';

/**
 * The light/dark switch of the site header and the web app's top bar: one toggle button, pressed while the
 * theme is dark (see ./theme for how it returns to following the OS). Its icon, half light and half dark, is the
 * same in both states, so the prerendered markup never shows a wrong one before hydration.
 */
export function ThemeToggle({ className = '' }: { className?: string }) {
  const theme = useTheme();
  return (
    <button
      type="button"
      className={`icon-button theme-toggle ${className}`.trim()}
      aria-label="Dark theme"
      title="Dark theme"
      aria-pressed={theme === null ? undefined : theme === 'dark'}
      onClick={() => toggleTheme()}
    >
      <svg width={20} height={20} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <circle cx="12" cy="12" r="8.5" fill="none" stroke="currentColor" strokeWidth={1.8} />
        <path d="M12 3.5a8.5 8.5 0 0 1 0 17Z" fill="currentColor" />
      </svg>
    </button>
  );
}
