import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';

export interface FakeProfile {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/**
 * A local OAuth 2 / OpenID Connect server (oauth2-mock-server: real authorize, token with PKCE
 * check, userinfo and JWKS endpoints) standing in for Google, GitHub and Microsoft, plus a tiny
 * GitHub-style /user/emails endpoint. `profile` is what the next sign-in reports.
 */
export async function startOAuthServer() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const issuer = server.issuer.url!;
  const state = { profile: { sub: 'user-1', email: 'oauth@example.com', email_verified: true, name: 'OAuth User' } as FakeProfile, failToken: false };

  server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.sub = state.profile.sub;
    token.payload.email = state.profile.email;
    token.payload.email_verified = state.profile.email_verified;
  });
  server.service.on('beforeResponse', (res: { statusCode: number; body: unknown }) => {
    if (state.failToken) {
      res.statusCode = 400;
      res.body = { error: 'invalid_grant', error_description: 'The code has expired' };
    }
  });
  server.service.on('beforeUserinfo', (res: { body: unknown }) => {
    res.body = { ...state.profile, id: state.profile.sub, login: state.profile.name };
  });

  // GitHub lists e-mails separately; only a bearer token gets an answer.
  const emails: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!req.headers.authorization?.startsWith('Bearer ')) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ email: state.profile.email, primary: true, verified: state.profile.email_verified }]));
  });
  await new Promise<void>((r) => emails.listen(0, '127.0.0.1', r));
  const emailsUrl = `http://127.0.0.1:${(emails.address() as AddressInfo).port}/user/emails`;

  const env: Record<string, string> = {};
  for (const p of ['GOOGLE', 'GITHUB', 'MICROSOFT']) {
    env[`OAUTH_${p}_CLIENT_ID`] = `${p.toLowerCase()}-client`;
    env[`OAUTH_${p}_CLIENT_SECRET`] = `${p.toLowerCase()}-secret`;
    env[`OAUTH_${p}_AUTHORIZATION_URL`] = `${issuer}/authorize`;
    env[`OAUTH_${p}_TOKEN_URL`] = `${issuer}/token`;
    env[`OAUTH_${p}_USERINFO_URL`] = `${issuer}/userinfo`;
    if (p !== 'GITHUB') env[`OAUTH_${p}_ISSUER`] = issuer;
  }
  env.OAUTH_GITHUB_EMAILS_URL = emailsUrl;

  return {
    env,
    state,
    /** Follows the authorization URL like a browser would and returns the code and state sent back. */
    async authorize(authorizationUrl: string): Promise<{ code: string; state: string }> {
      const res = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = new URL(res.headers.get('location')!);
      return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
    },
    async close() {
      await server.stop();
      await new Promise<void>((r) => emails.close(() => r()));
    },
  };
}
