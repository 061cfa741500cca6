// @glob/testing: what the backend's tests, Playwright's full stack (frontend/e2e/support/stack.mjs) and the benches
// (bench/) stand up beside the platform, one copy each: an SMTP server that keeps what it receives, a local OAuth 2 /
// OpenID Connect server standing in for Google, GitHub and Microsoft, PostgreSQL databases of their own, free ports.
//
// Plain ES modules (.mjs) with their types in a hand-written index.d.mts, and no build step: the simplest form all its
// users load as it is. The benches and the stack run under plain `node` (Node 20 loads no TypeScript, and nothing is
// built before a bench); jest compiles these files to CommonJS with the backend's own transform (@swc/jest, which
// takes .mjs) as it compiles the tests, and its global setup loads them with Node's require() (which loads ES modules
// since Node 20.19); TypeScript (the backend's tests, the frontend's e2e helpers) reads index.d.mts. So nothing here
// uses import.meta (CommonJS has none) or top-level await (require() refuses it). The implementations are typed with
// the declarations (`@type` tags) and checked against them by `tsc -p testing` (make typecheck): they cannot drift.
//
// Its packages are devDependencies: only tests, the full stack and the benches use it, so a production install
// (npm prune --omit=dev in the Dockerfile) leaves them out.
export { admin, createDatabase, databaseUrl, dropDatabase, query, randomName, serverUrl } from './database.mjs';
export { startOAuthServer } from './oauth.mjs';
export { freePort } from './ports.mjs';
export { startSmtpCatcher } from './smtp.mjs';
