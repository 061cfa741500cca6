import '@testing-library/jest-dom/jest-globals';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { configure } from '@testing-library/react';
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
