// What the web app and the desktop app's control panel share; each component imports its own stylesheet, and the
// tokens they use come from '@glob/ui/tokens.css', which each app imports once.
export { Card } from './Card';
export { DailyBars } from './DailyBars';
export { LOCALE, formatBytes, formatDay, formatGlob, formatShare } from './format';
export { Progress } from './Progress';
export { Stat } from './Stat';
export { Toggle } from './Toggle';
