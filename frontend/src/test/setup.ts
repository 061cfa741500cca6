import '@testing-library/jest-dom/jest-globals';
import { afterAll, afterEach, beforeAll, jest } from '@jest/globals';
import { configure } from '@testing-library/react';
import { PAGES } from '../content/pages';
import { server } from '../mocks/node';

// findBy*/waitFor wait up to 5 s (the default 1 s is too short on a loaded 2-core CI machine).
configure({ asyncUtilTimeout: 5_000 });

// Every test talks to the spec-derived handlers; a request nobody handles is a test failure.
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// jsdom has no layout: scrolling is a no-op.
window.scrollTo = (() => undefined) as typeof window.scrollTo;
Element.prototype.scrollIntoView = function scrollIntoView() {};

// `virtual:glob-head/<key>` (vite.config.ts pageTable()): each page key's title, description and path.
for (const { key, title, description, path } of Object.values(PAGES)) {
  jest.mock(`virtual:glob-head/${key}`, () => ({ __esModule: true, default: { title, description, path } }), { virtual: true });
}
