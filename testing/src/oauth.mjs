import { createServer } from 'node:http';
import { OAuth2Server } from 'oauth2-mock-server';

/** @type {import('./index.mjs').OAuthProfile} */
const FIRST_PROFILE = { sub: 'user-1', email: 'oauth@example.com', email_verified: true, name: 'OAuth User' };

/**
 * GitHub lists a user's e-mail addresses apart from the user (GET /user/emails): this answers the profile's, to a
 * bearer token only. Answers the endpoint's URL and its close.
 * @param {{ profile: import('./index.mjs').OAuthProfile }} state
 */
async function startGitHubEmails(state) {
  const server = createServer((req, res) => {
    if (!req.headers.authorization?.startsWith('Bearer ')) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ email: state.profile.email, primary: true, verified: state.profile.email_verified }]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/user/emails`,
    /** @type {() => Promise<void>} */
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** @type {typeof import('./index.mjs').startOAuthServer} */
export const startOAuthServer = async ({ providers = ['google', 'github', 'microsoft'], profile = FIRST_PROFILE } = {}) => {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  // The library names itself http://localhost:<port>; the address it listens on is what a browser must reach.
  const issuer = `http://127.0.0.1:${server.address().port}`;
  server.issuer.url = issuer;
  const state = { profile: { ...profile }, failToken: false };

  server.service.on('beforeTokenSigning', (token) => {
    token.payload.sub = state.profile.sub;
    token.payload.email = state.profile.email;
    token.payload.email_verified = state.profile.email_verified;
  });
  server.service.on('beforeResponse', (res) => {
    if (state.failToken) {
      res.statusCode = 400;
      res.body = { error: 'invalid_grant', error_description: 'The code has expired' };
    }
  });
  // OpenID Connect's userinfo, and GitHub's /user (`id`, `login`) from the same profile.
  server.service.on('beforeUserinfo', (res) => {
    res.body = { ...state.profile, id: state.profile.sub, login: state.profile.name };
  });

  const emails = providers.includes('github') ? await startGitHubEmails(state) : null;
  /** @type {Record<string, string>} */
  const env = {};
  for (const provider of providers) {
    const p = provider.toUpperCase();
    env[`OAUTH_${p}_CLIENT_ID`] = `${provider}-client`;
    env[`OAUTH_${p}_CLIENT_SECRET`] = `${provider}-secret`;
    env[`OAUTH_${p}_AUTHORIZATION_URL`] = `${issuer}/authorize`;
    env[`OAUTH_${p}_TOKEN_URL`] = `${issuer}/token`;
    env[`OAUTH_${p}_USERINFO_URL`] = `${issuer}/userinfo`;
    // GitHub is OAuth 2 without OpenID Connect: no issuer, no ID token.
    if (provider !== 'github') env[`OAUTH_${p}_ISSUER`] = issuer;
  }
  if (emails) env.OAUTH_GITHUB_EMAILS_URL = emails.url;

  return {
    issuer,
    env,
    state,
    async authorize(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = new URL(/** @type {string} */ (res.headers.get('location')));
      return { code: /** @type {string} */ (location.searchParams.get('code')), state: /** @type {string} */ (location.searchParams.get('state')) };
    },
    async close() {
      await server.stop();
      await emails?.close();
    },
  };
};
