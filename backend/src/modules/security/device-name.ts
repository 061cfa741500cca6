import Bowser from 'bowser';

/** What a session shows when its User-Agent names neither a browser nor a system. */
export const UNKNOWN_DEVICE = 'Unknown device';

/** A readable name of the browser and system a User-Agent describes: "Chrome on Linux", "Safari on iOS". */
export function deviceName(userAgent: string): string {
  if (!userAgent.trim()) return UNKNOWN_DEVICE;
  const { browser, os } = Bowser.parse(userAgent);
  const name = [browser.name, os.name].filter((part): part is string => Boolean(part));
  return name.length ? name.join(' on ') : UNKNOWN_DEVICE;
}
