import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import { visitRoute } from '../../test/render';

const visit = visitRoute;

beforeEach(() => localStorage.clear());

describe('web app routes', () => {
  it('/app/auth is the sign-in screen, without the public header', async () => {
    await visit('/app/auth');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeInTheDocument();
    expect(document.querySelector('header.site-header')).toBeNull();
    expect(screen.getByRole('main')).toHaveAttribute('id', 'main');
  });

  it.each(['/app', '/app/dashboard', '/app/assistant', '/app/wallet'])('%s sends a visitor who is not signed in to /app/auth', async (path) => {
    const router = await visit(path);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeInTheDocument();
  });

  it('/account-deletion keeps its heading inside the site frame and shows the first step', async () => {
    await visit('/account-deletion');
    expect(await screen.findByRole('heading', { level: 1, name: 'Delete Your Account' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Enter your e-mail' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send verification code' })).toBeDisabled();
    expect(screen.getByRole('banner')).toBeInTheDocument();
  });

  it('/app/oauth/callback/{provider} refuses a redirect without a code', async () => {
    await visit('/app/oauth/callback/google?state=abc');
    expect(await screen.findByRole('heading', { level: 1, name: 'Authentication Failed' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Missing authorization code');
  });
});
