import { lt, valid } from 'semver';

/** Whether an agent of `version` (null: it did not say) is older than `minimum` (null: no minimum). */
export function outdated(version: string | null, minimum: string | null): boolean {
  if (!minimum) return false;
  return !version || !valid(version) || lt(version, minimum);
}

/** What an outdated agent is told, in plain words: why it takes no jobs, and how to update it. */
export function updateMessage(version: string | null, minimum: string): string {
  return (
    `This node agent${version ? ` (version ${version})` : ''} is older than the network accepts (${minimum} or later), so it takes no jobs. ` +
    'Update it: stop it and start it again with `npx glob-node@latest` (or pull the newest glob-node image); ' +
    'the desktop app updates itself to the newest release.'
  );
}
