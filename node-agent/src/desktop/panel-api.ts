/**
 * The desktop app's local API: what its control panel (node-agent/panel, React) asks the app's own server
 * (panel-server.ts) on 127.0.0.1. One definition for both sides. Every /local/ request carries the panel's secret in
 * the header below (the panel reads it from the fragment of the URL the app opened, `#secret=`) and a Host of the
 * loopback address; anything else is refused.
 *
 *   GET    /local/state                  -> PanelState
 *   GET    /local/platform               -> Schemas['NodeSelf'] (the platform's figures, through the node credential)
 *   POST   /local/sharing                { sharing: boolean }                  -> PanelState
 *   POST   /local/allocation             Schemas['NodeAllocation']             -> PanelState
 *   POST   /local/idle-only              { enabled: boolean, minutes: number } -> PanelState
 *   POST   /local/start-at-login         { enabled: boolean }                  -> PanelState
 *   POST   /local/pair                   { api?: string }                      -> PanelState (starts pairing by code)
 *   POST   /local/pools                  Schemas['PoolCreate']                 -> Schemas['Pool']
 *   DELETE /local/pools/:poolId                                               -> 204
 *   POST   /local/update/check                                                -> PanelState (looks for a newer release now)
 *   POST   /local/update/restart                                              -> 202 (jobs returned, then the app starts again
 *                                                                                  as the version it downloaded)
 *   POST   /local/quit                                                        -> 202 (jobs returned, then the app exits)
 *
 * Errors answer { statusCode, message } as the platform's API does. POST requests need Content-Type application/json
 * (an empty body is `{}`); an Origin header, when sent, must be the panel's own.
 */
import type { Schemas } from '../contract';

/** The header every /local/ request carries the panel's secret in. */
export const PANEL_SECRET_HEADER = 'x-glob-panel-secret';
/** The fragment parameter of the URL the app opens: `http://127.0.0.1:PORT/#secret=…`. */
export const PANEL_SECRET_PARAM = 'secret';

/** The address that opens the panel of the app listening on `port` with `secret`. */
export const panelUrl = (port: number, secret: string): string => `http://127.0.0.1:${port}/#${PANEL_SECRET_PARAM}=${secret}`;

/**
 * What the tray and the panel show first:
 * `unpaired` (no credential: pairing by code starts from the panel), `pairing` (a code waits for confirmation in the
 * web app), `starting` (models pulled and loaded), `sharing`, `paused` (by the owner, the platform, the battery or
 * idle-only sharing while the computer is in use), `offline` (the platform cannot be reached), `stopping`.
 */
export type PanelPhase = 'unpaired' | 'pairing' | 'starting' | 'sharing' | 'paused' | 'offline' | 'stopping';

export interface PanelModel {
  id: string;
  /** `ready` on disk and verified; `pulling` now; `waiting` to be pulled; `failed` (see `error`). */
  state: 'ready' | 'pulling' | 'waiting' | 'failed';
  /** Bytes on disk now, and of the whole file (null while unknown). */
  bytes: number;
  total_bytes: number | null;
  /** Loaded in the engine and offered to the network. */
  serving: boolean;
  error?: string;
}

export interface PanelState {
  phase: PanelPhase;
  /** Why it is paused, in plain words (null unless `paused`). */
  paused_reason: string | null;
  /** The platform's address (null before one is known: the panel asks for it). */
  api: string | null;
  /** Set while `pairing`: the code to confirm and the page that confirms it. */
  device: { user_code: string; verification_uri_complete: string; expires_at: string } | null;
  node: { id: string; name: string } | null;
  /** The owner's switch in this app: off, no jobs are claimed (the platform hears of it as a pause). */
  sharing: boolean;
  idle_only: { enabled: boolean; minutes: number; idle_seconds: number | null };
  start_at_login: boolean;
  update: PanelUpdate;
  allocation: Schemas['NodeAllocation'] | null;
  models: PanelModel[];
  running_jobs: number;
  host: { hostname: string; cpu_cores: number; memory_bytes: number; gpu: string | null };
  /** The web app's wallet page, for "Open wallet". */
  wallet_url: string | null;
  /**
   * Why the node stopped on its own (it could not start, or it was revoked), in plain words; the app starts it again
   * by itself (a revoked node pairs anew). Null or absent while all is well.
   */
  problem?: string | null;
}

/** This app's version and its updates. */
export interface PanelUpdate {
  current: string;
  /** A downloaded and verified version waits for a restart, or the platform requires a newer one: the tray says "Update ready". */
  ready: boolean;
  /** False when this copy does not update itself (run from npm or a container, which update otherwise). */
  available: boolean;
  /** `downloading` (see `progress`), `ready` (`version` starts at the next restart), `failed` (see `message`). */
  phase: 'idle' | 'checking' | 'downloading' | 'ready' | 'failed';
  version: string | null;
  progress: number | null;
  /** The platform's requirement, else what the last check found, in plain words. */
  message: string | null;
}

export interface PanelError {
  statusCode: number;
  message: string;
}
