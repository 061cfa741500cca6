import { describe, expect, it } from '@jest/globals';
import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../test/render';
import { Footer } from './Footer';
import { Header } from './Header';

const scrollTo = (y: number) =>
  act(() => {
    Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
    fireEvent.scroll(window);
  });

describe('header', () => {
  it('turns opaque only after scrolling more than 10 px', async () => {
    await renderWithProviders(<Header />);
    const header = await screen.findByRole('banner');
    expect(header).not.toHaveClass('is-opaque');
    scrollTo(10);
    expect(header).not.toHaveClass('is-opaque');
    scrollTo(11);
    expect(header).toHaveClass('is-opaque');
    scrollTo(0);
    expect(header).not.toHaveClass('is-opaque');
  });

  it('highlights the active link and offers Login and Download App', async () => {
    await renderWithProviders(<Header />, { path: '/downloads' });
    const nav = within(await screen.findByRole('navigation', { name: 'Main' }));
    expect(nav.getByRole('link', { name: 'Downloads' })).toHaveClass('active');
    expect(nav.getByRole('link', { name: 'Home' })).not.toHaveClass('active');
    expect(nav.getAllByRole('link').map((a) => a.textContent)).toEqual(['Home', 'Documentation', 'Downloads', 'About', 'Blog', 'Contact']);
    expect(screen.getAllByRole('link', { name: 'Login' })[0]).toHaveAttribute('href', '/app/auth');
    expect(screen.getAllByRole('link', { name: 'Download App' })[0]).toHaveAttribute('href', '/downloads');
    expect(within(screen.getByRole('banner')).getByRole('button', { name: 'Dark theme' })).toBeInTheDocument();
  });

  it('toggles the mobile menu, which adds AI News and closes when a link is tapped', async () => {
    const user = userEvent.setup();
    await renderWithProviders(<Header />);
    const toggle = await screen.findByRole('button', { name: 'Open menu' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const menu = within(screen.getByRole('navigation', { name: 'Mobile' }));
    expect(menu.getByRole('link', { name: 'AI News' })).toHaveAttribute('href', '/news');
    await user.click(menu.getByRole('link', { name: 'AI News' }));
    expect(screen.queryByRole('navigation', { name: 'Mobile' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('closes the mobile menu on Escape', async () => {
    const user = userEvent.setup();
    await renderWithProviders(<Header />);
    await user.click(await screen.findByRole('button', { name: 'Open menu' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('navigation', { name: 'Mobile' })).toBeNull();
  });
});

describe('footer', () => {
  it('has Resources, Community and About columns, the year and the legal links', async () => {
    await renderWithProviders(<Footer />);
    const footer = within(await screen.findByRole('contentinfo'));
    for (const column of ['Resources', 'Community', 'About']) expect(footer.getByRole('heading', { name: column })).toBeInTheDocument();
    expect(footer.getByText(new RegExp(`© ${new Date().getFullYear()} Glob Network`))).toBeInTheDocument();
    expect(footer.getByRole('link', { name: 'API Reference' })).toHaveAttribute('href', '/documentation#api');
    const legal = within(footer.getByRole('list', { name: 'Legal' }));
    expect(legal.getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual([
      '/privacy-policy',
      '/terms-of-service',
      '/license',
      '/account-deletion',
    ]);
  });
});
