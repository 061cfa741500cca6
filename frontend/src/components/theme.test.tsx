import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { THEME_KEY, currentTheme, setTheme, storedTheme, subscribeTheme, toggleTheme } from './theme';
import { ThemeToggle } from './ThemeToggle';

const root = document.documentElement;
const frontend = join(__dirname, '..', '..');

/** An OS preference jsdom lacks: matchMedia answering the light query, with change events. */
function osPrefers(theme: 'light' | 'dark') {
  const listeners = new Set<() => void>();
  const media = {
    matches: theme === 'light',
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
  };
  window.matchMedia = ((query: string) => {
    expect(query).toBe('(prefers-color-scheme: light)');
    return media;
  }) as unknown as typeof window.matchMedia;
  return {
    change(next: 'light' | 'dark') {
      media.matches = next === 'light';
      listeners.forEach((listener) => listener());
    },
  };
}

beforeEach(() => {
  localStorage.clear();
  delete root.dataset.theme;
});

afterEach(() => {
  delete (window as { matchMedia?: unknown }).matchMedia;
});

describe('theme', () => {
  it('follows the OS while nothing is chosen; dark where the browser cannot tell', () => {
    expect(currentTheme()).toBe('dark');
    osPrefers('light');
    expect(currentTheme()).toBe('light');
    expect(root.dataset.theme).toBeUndefined();
  });

  it('keeps a choice that differs from the OS, and forgets it (follows the OS again) when toggled back', () => {
    osPrefers('dark');
    expect(toggleTheme()).toBe('light');
    expect(localStorage.getItem(THEME_KEY)).toBe('light');
    expect(root.dataset.theme).toBe('light');
    expect(toggleTheme()).toBe('dark');
    expect(localStorage.getItem(THEME_KEY)).toBeNull();
    expect(root.dataset.theme).toBeUndefined();

    osPrefers('light');
    setTheme('dark');
    expect(storedTheme()).toBe('dark');
    expect(root.dataset.theme).toBe('dark');
  });

  it('ignores a stored value that is no theme', () => {
    osPrefers('light');
    localStorage.setItem(THEME_KEY, 'purple');
    expect(storedTheme()).toBeNull();
    expect(currentTheme()).toBe('light');
  });

  it('still switches the page when storage refuses the choice', () => {
    osPrefers('dark');
    jest.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new Error('QuotaExceededError');
    });
    toggleTheme();
    expect(root.dataset.theme).toBe('light');
  });

  it('tells subscribers about its own changes, another tab’s and the OS’s, and applies another tab’s choice', () => {
    const os = osPrefers('dark');
    const listener = jest.fn();
    const unsubscribe = subscribeTheme(listener);
    setTheme('light');
    expect(listener).toHaveBeenCalledTimes(1);
    os.change('light');
    expect(listener).toHaveBeenCalledTimes(2);

    localStorage.setItem(THEME_KEY, 'dark');
    window.dispatchEvent(new StorageEvent('storage', { key: THEME_KEY, newValue: 'dark' }));
    expect(root.dataset.theme).toBe('dark');
    expect(listener).toHaveBeenCalledTimes(3);
    window.dispatchEvent(new StorageEvent('storage', { key: 'other', newValue: 'x' }));
    expect(listener).toHaveBeenCalledTimes(3);

    unsubscribe();
    setTheme('light');
    expect(listener).toHaveBeenCalledTimes(3);
  });
});

describe("index.html's inline script", () => {
  const html = readFileSync(join(frontend, 'index.html'), 'utf8');
  const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const run = () => new Function(inline[0]!)();

  it('is the one inline script, before the stylesheets and the page', () => {
    expect(inline).toHaveLength(1);
    expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<!--head:seo-->'));
  });

  it('applies a stored choice as theme.ts stores it, and nothing else', () => {
    osPrefers('dark');
    setTheme('light');
    delete root.dataset.theme;
    run();
    expect(root.dataset.theme).toBe('light');

    delete root.dataset.theme;
    localStorage.setItem(THEME_KEY, 'purple');
    run();
    expect(root.dataset.theme).toBeUndefined();
  });

  it('does not throw where storage is refused', () => {
    jest.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new Error('SecurityError');
    });
    expect(run).not.toThrow();
  });
});

describe('the light palette (@glob/ui/tokens.css, which styles/global.css imports)', () => {
  const css = readFileSync(join(frontend, '..', 'ui', 'tokens.css'), 'utf8');
  const root = css.slice(css.indexOf(':root {'), css.indexOf('}', css.indexOf(':root {')));
  /** A token's light and dark values: `light-dark(light, dark)`, or one value for both. */
  const token = (name: string) => {
    const value = new RegExp(`${name}:\\s*([^;]+);`).exec(root)?.[1]?.trim() ?? '';
    const both = /^light-dark\(([^,]+),\s*(.+)\)$/.exec(value);
    return both ? { light: both[1], dark: both[2] } : { light: value, dark: value };
  };

  it('gives every surface and text colour a light value of its own, chosen by the colour scheme alone', () => {
    for (const name of ['--bg', '--surface', '--text', '--text-muted', '--accent-text', '--danger'])
      expect(token(name).light).not.toBe(token(name).dark);
    expect(css).toMatch(/@media \(prefers-color-scheme: light\) \{\s*:root:not\(\[data-theme='dark'\]\) \{\s*color-scheme: light;\s*\}/);
    expect(css).toMatch(/:root\[data-theme='light'\] \{\s*color-scheme: light;\s*\}/);
    expect(root).toContain('color-scheme: dark;');
  });

  it("gives the browser's own bar the page's background in each scheme", () => {
    const html = readFileSync(join(frontend, 'index.html'), 'utf8');
    const meta = (scheme: string) =>
      new RegExp(`<meta name="theme-color" content="([^"]+)" media="\\(prefers-color-scheme: ${scheme}\\)"`).exec(html)?.[1];
    expect(meta('light')).toBe(token('--bg').light);
    expect(meta('dark')).toBe(token('--bg').dark);
  });
});

describe('ThemeToggle', () => {
  it('is a "Dark theme" toggle button, pressed while dark, that switches the page', async () => {
    const user = userEvent.setup();
    osPrefers('dark');
    render(<ThemeToggle />);
    const button = screen.getByRole('button', { name: 'Dark theme' });
    expect(button).toHaveAttribute('aria-pressed', 'true');
    await user.click(button);
    expect(button).toHaveAttribute('aria-pressed', 'false');
    expect(root.dataset.theme).toBe('light');
    await user.click(button);
    expect(button).toHaveAttribute('aria-pressed', 'true');
    expect(root.dataset.theme).toBeUndefined();
  });

  it('follows a change of the OS while it is shown', () => {
    const os = osPrefers('dark');
    render(<ThemeToggle />);
    act(() => os.change('light'));
    expect(screen.getByRole('button', { name: 'Dark theme' })).toHaveAttribute('aria-pressed', 'false');
  });

  it('hydrates over prerendered markup (which cannot know the theme), then shows the state', async () => {
    osPrefers('light');
    const container = document.createElement('div');
    container.innerHTML = renderToString(<ThemeToggle />);
    expect(container.querySelector('button')).not.toHaveAttribute('aria-pressed');
    document.body.appendChild(container);
    const onRecoverableError = jest.fn();
    await act(async () => {
      hydrateRoot(container, <ThemeToggle />, { onRecoverableError });
    });
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(container.querySelector('button')).toHaveAttribute('aria-pressed', 'false');
    container.remove();
  });
});
