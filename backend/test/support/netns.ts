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

/** Deletes a link or namespace that may already be gone (deleting a namespace takes its veth pair with it). */
const quietly = (...args: string[]) => {
  try {
    ip(...args);
  } catch {
    // Already gone.
  }
};

/**
 * A namespace `name` with the inside end of a new veth pair at `address`/24; `attach` sets up the outside end on this
 * side (an address of its own, or a bridge port). Interface names stay under Linux's 15 characters.
 */
function addNamespace(name: string, veth: string, address: string, gateway: string, attach: (outside: string) => void): NetnsHost {
  const outside = `${veth}o`;
  const inside = `${veth}i`;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    attach(outside);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/24`, 'dev', inside);
    ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (err) {
    quietly('netns', 'del', name);
    throw err;
  }
  return {
    name,
    address,
    gateway,
    spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
    remove() {
      quietly('netns', 'del', name);
      quietly('link', 'del', outside);
    },
  };
}

/** Makes a namespace host on 10.213.<random>.0/24, joined to this side by its veth pair. */
export function createNetnsHost(): NetnsHost {
  const net = randomInt(1, 255);
  const tag = `${process.pid % 10000}${net}`;
  const gateway = `10.213.${net}.1`;
  return addNamespace(`glob${tag}`, `gv${tag}`, `10.213.${net}.2`, gateway, (outside) => ip('addr', 'add', `${gateway}/24`, 'dev', outside));
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
  const hosts: NetnsHost[] = [];
  const remove = () => {
    for (const h of hosts) h.remove();
    quietly('link', 'del', bridge);
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (let i = 0; i < count; i++) {
      hosts.push(
        addNamespace(`glob${tag}h${i}`, `gl${tag}${i}`, `10.214.${net}.${i + 2}`, gateway, (outside) => ip('link', 'set', outside, 'master', bridge)),
      );
    }
    return { hosts, gateway, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
