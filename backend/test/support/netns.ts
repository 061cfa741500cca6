import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomInt } from 'node:crypto';

/**
 * A separate host for a test: a network namespace joined to this one by a veth pair on a private /24 the test
 * makes itself, so a process in it reaches the test's servers only over that link (its own loopback is empty).
 */
export interface NetnsHost {
  name: string;
  /** The namespace's own address. */
  address: string;
  /** This side of the link: where servers the host must reach listen. */
  gateway: string;
  /** Runs a command inside the namespace. */
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** Why namespaces cannot be made here (not root, no iproute2, a sandbox that forbids them), or null when they can. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (ip netns add)';
  const probe = `globprobe${process.pid}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return null;
  } catch (err) {
    return `ip netns add failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

/** Makes a namespace host on 10.213.<random>.0/24 (interface names stay under Linux's 15 characters). */
export function createNetnsHost(): NetnsHost {
  const net = randomInt(1, 255);
  const tag = `${process.pid % 10000}${net}`;
  const name = `glob${tag}`;
  const outside = `gvh${tag}`;
  const inside = `gvn${tag}`;
  const gateway = `10.213.${net}.1`;
  const address = `10.213.${net}.2`;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${gateway}/24`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/24`, 'dev', inside);
    ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (err) {
    ip('netns', 'del', name);
    throw err;
  }
  return {
    name,
    address,
    gateway,
    spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
    remove() {
      try {
        ip('netns', 'del', name);
      } catch {
        // Already gone.
      }
      try {
        ip('link', 'del', outside);
      } catch {
        // Deleting the namespace took its pair with it.
      }
    },
  };
}

/** Hosts on one private LAN: a bridge on this side (its address is the gateway), one namespace per host on it. */
export interface NetnsLan {
  hosts: NetnsHost[];
  gateway: string;
  remove(): void;
}

/** Makes `count` namespace hosts on a bridge over 10.214.<random>.0/24, so they reach each other and this side. */
export function createNetnsLan(count: number): NetnsLan {
  const net = randomInt(1, 255);
  const tag = `${process.pid % 10000}${net}`;
  const bridge = `gbr${tag}`;
  const gateway = `10.214.${net}.1`;
  const made: string[] = [];
  const cleanup = () => {
    for (const name of made) {
      try {
        ip('netns', 'del', name);
      } catch {
        // Already gone.
      }
    }
    try {
      ip('link', 'del', bridge);
    } catch {
      // Already gone.
    }
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    const hosts = Array.from({ length: count }, (_, i): NetnsHost => {
      const name = `glob${tag}h${i}`;
      const outside = `gvb${tag}${i}`;
      const inside = `gvc${tag}${i}`;
      const address = `10.214.${net}.${i + 2}`;
      ip('netns', 'add', name);
      made.push(name);
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', inside, 'netns', name);
      ip('link', 'set', outside, 'master', bridge);
      ip('link', 'set', outside, 'up');
      ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/24`, 'dev', inside);
      ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
      ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
      return {
        name,
        address,
        gateway,
        spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
        remove: () => {
          try {
            ip('netns', 'del', name);
          } catch {
            // Already gone.
          }
        },
      };
    });
    return { hosts, gateway, remove: cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}
