/** This agent's version, reported in every heartbeat (the platform may require a newer one) and compared by updates. */
import packageJson from '../package.json';

// A release build stamps its own version here (rolldown.config.mjs defines it from GLOB_AGENT_VERSION), so one source
// tree builds any release; from source it is the package's.
declare const __GLOB_AGENT_VERSION__: string | undefined;

export const AGENT_VERSION: string = typeof __GLOB_AGENT_VERSION__ === 'string' ? __GLOB_AGENT_VERSION__ : packageJson.version;
