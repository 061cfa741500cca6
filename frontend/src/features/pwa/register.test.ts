import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { registerServiceWorker } from './register';
import { pwaStore } from './store';

class FakeWorker extends EventTarget {
  state = 'installing';
  postMessage = jest.fn();
}

function fakeContainer({ controller = {}, waiting = null as FakeWorker | null, fail = false } = {}) {
  const registration = Object.assign(new EventTarget(), { waiting, installing: null as FakeWorker | null, scope: 'http://localhost/' });
  const container = Object.assign(new EventTarget(), {
    controller,
    register: jest.fn(async (_url: string, _options?: RegistrationOptions) => {
      if (fail) throw new Error('denied');
      return registration;
    }),
  });
  return { container: container as unknown as ServiceWorkerContainer, registration, raw: container };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => pwaStore.reset());

describe('service worker registration', () => {
  it('registers /sw.js with scope /', async () => {
    const { container, raw } = fakeContainer();
    registerServiceWorker(container);
    await flush();
    expect(raw.register).toHaveBeenCalledWith('/sw.js', { scope: '/' });
    expect(pwaStore.getState().updateAvailable).toBe(false);
  });

  it("offers 'Update Available' when a new worker installs while an old one controls the page", async () => {
    const { container, registration } = fakeContainer();
    registerServiceWorker(container);
    await flush();
    const worker = new FakeWorker();
    registration.installing = worker;
    registration.dispatchEvent(new Event('updatefound'));
    worker.state = 'installed';
    worker.dispatchEvent(new Event('statechange'));
    expect(pwaStore.getState().updateAvailable).toBe(true);
    pwaStore.refresh();
    expect(worker.postMessage).toHaveBeenCalledWith({ type: 'SKIP_WAITING' });
  });

  it('offers nothing on the very first install (no controlling worker)', async () => {
    const { container, registration } = fakeContainer({ controller: null as never });
    registerServiceWorker(container);
    await flush();
    const worker = new FakeWorker();
    registration.installing = worker;
    registration.dispatchEvent(new Event('updatefound'));
    worker.state = 'installed';
    worker.dispatchEvent(new Event('statechange'));
    expect(pwaStore.getState().updateAvailable).toBe(false);
  });

  it('offers a worker that is already waiting', async () => {
    const waiting = new FakeWorker();
    const { container } = fakeContainer({ waiting });
    registerServiceWorker(container);
    await flush();
    expect(pwaStore.getState().updateAvailable).toBe(true);
  });

  it('only logs a registration failure', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { container } = fakeContainer({ fail: true });
    registerServiceWorker(container);
    await flush();
    expect(warn).toHaveBeenCalledWith('Service worker registration failed', expect.any(Error));
  });
});
