/**
 * State of the installable-app helper: the deferred install prompt, installed / standalone,
 * and the 'Update Available' flag raised by the service worker. A tiny external store for useSyncExternalStore.
 */
export interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed'; platform?: string }>;
}

export interface PwaState {
  /** The browser offered installation and the prompt has not been used yet. */
  installable: boolean;
  installed: boolean;
  standalone: boolean;
  dismissed: boolean;
  /** A new worker finished installing while an old one controls the page. */
  updateAvailable: boolean;
  message: string | null;
}

export const INSTALL_UNAVAILABLE = 'Install prompt not available';
/** The update notice shows for 10 s. */
export const UPDATE_NOTICE_MS = 10_000;

let state: PwaState = {
  installable: false,
  installed: false,
  standalone: false,
  dismissed: false,
  updateAvailable: false,
  message: null,
};
let deferredPrompt: BeforeInstallPromptEvent | null = null;
let applyUpdate: (() => void) | null = null;
const listeners = new Set<() => void>();

function set(patch: Partial<PwaState>) {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
}

export const pwaStore = {
  getState: () => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Keeps the browser's install prompt for the banner's Install button. */
  offerInstall(event: BeforeInstallPromptEvent) {
    event.preventDefault();
    deferredPrompt = event;
    set({ installable: true, message: null });
  },
  async install(): Promise<void> {
    const prompt = deferredPrompt;
    if (!prompt) {
      set({ message: INSTALL_UNAVAILABLE });
      return;
    }
    deferredPrompt = null; // a prompt can be shown once
    await prompt.prompt();
    const choice = await prompt.userChoice;
    set({ installable: false, installed: choice.outcome === 'accepted' || state.installed });
  },
  dismiss() {
    set({ dismissed: true, message: null });
  },
  markInstalled() {
    deferredPrompt = null;
    set({ installed: true, installable: false });
  },
  setStandalone(standalone: boolean) {
    set({ standalone });
  },
  showUpdate(update: () => void) {
    applyUpdate = update;
    set({ updateAvailable: true });
  },
  hideUpdate() {
    set({ updateAvailable: false });
  },
  refresh() {
    set({ updateAvailable: false });
    if (applyUpdate) applyUpdate();
    else window.location.reload();
  },
  /** For tests. */
  reset() {
    deferredPrompt = null;
    applyUpdate = null;
    state = { installable: false, installed: false, standalone: false, dismissed: false, updateAvailable: false, message: null };
    listeners.forEach((l) => l());
  },
};

let listening = false;
/** Listens for the browser's install events; called once when the banner first mounts. */
export function listenForInstall(win: Window = window) {
  if (listening) return;
  listening = true;
  win.addEventListener('beforeinstallprompt', (event) => pwaStore.offerInstall(event as BeforeInstallPromptEvent));
  win.addEventListener('appinstalled', () => pwaStore.markInstalled());
  const standalone =
    win.matchMedia?.('(display-mode: standalone)').matches || (win.navigator as Navigator & { standalone?: boolean }).standalone === true;
  pwaStore.setStandalone(Boolean(standalone));
}

/** For tests. */
export function resetInstallListening() {
  listening = false;
}
