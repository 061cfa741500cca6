/**
 * The platform's Lua scripts, each a command of its own on every Redis client (ioredis `defineCommand`, sent by SHA-1
 * after the first call). Defined when a client is made, never on first use: on an auto-pipelining client, a command
 * defined while a pipeline is open is missing from that pipeline, which then hands its replies to the wrong callers.
 */
import type { Redis } from 'ioredis';

const scripts = new Map<string, { numberOfKeys: number; lua: string }>();

/** Registers a script (at import time, before any client is made); returns its command name. */
export function defineScript(name: string, numberOfKeys: number, lua: string): string {
  scripts.set(name, { numberOfKeys, lua });
  return name;
}

/** Every registered script as a command of `redis` (those it has already are left as they are). */
export function withScripts<T extends Redis>(redis: T): T {
  for (const [name, s] of scripts) if (typeof (redis as unknown as Record<string, unknown>)[name] !== 'function') redis.defineCommand(name, s);
  return redis;
}
