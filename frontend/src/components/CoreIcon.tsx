import type { SVGProps } from 'react';

/**
 * The line icons the site frame (header, install banner) and the home page draw: only these travel in the main
 * chunk. Same API as components/Icon.tsx, which has every icon (these included) and goes with the pages using it.
 */
export const CORE_PATHS = {
  network:
    'M12 3a2 2 0 1 1 0 4 2 2 0 0 1 0-4Zm-7 12a2 2 0 1 1 0 4 2 2 0 0 1 0-4Zm14 0a2 2 0 1 1 0 4 2 2 0 0 1 0-4ZM12 7v4m0 0-5.5 4.3M12 11l5.5 4.3M7 17h10',
  token: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18Zm0 4v10m-3-7.5c0-1.4 1.3-2 3-2s3 .7 3 2-1.3 1.8-3 2.3-3 .9-3 2.2 1.3 2 3 2 3-.6 3-2',
  shield: 'M12 3 5 6v5c0 4.4 3 8.4 7 10 4-1.6 7-5.6 7-10V6l-7-3Zm-3 9 2 2 4-4',
  scale: 'M4 20V10m5.3 10V4m5.4 16v-7M20 20V7M3 20h18',
  download: 'M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M5 19h14',
  book: 'M4 5.5C4 4.7 4.7 4 5.5 4H11v16H5.5A1.5 1.5 0 0 1 4 18.5v-13ZM20 5.5c0-.8-.7-1.5-1.5-1.5H13v16h5.5c.8 0 1.5-.7 1.5-1.5v-13Z',
  menu: 'M4 7h16M4 12h16M4 17h16',
  close: 'M6 6l12 12M18 6 6 18',
  arrowRight: 'M5 12h14m0 0-5-5m5 5-5 5',
  users: 'M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm-6 9c0-3.3 2.7-6 6-6s6 2.7 6 6m1-16.5a3.5 3.5 0 0 1 0 7m2.5 2.8c1.8.9 3 2.7 3 4.7',
  cpu: 'M7 7h10v10H7V7Zm3 3h4v4h-4v-4ZM9.5 3v4m5-4v4m-5 10v4m5-4v4M3 9.5h4m-4 5h4m10-5h4m-4 5h4',
  database: 'M12 3c4.4 0 8 1.3 8 3s-3.6 3-8 3-8-1.3-8-3 3.6-3 8-3Zm8 3v12c0 1.7-3.6 3-8 3s-8-1.3-8-3V6m16 6c0 1.7-3.6 3-8 3s-8-1.3-8-3',
} as const;

export type IconName = keyof typeof CORE_PATHS;

export type IconProps<Name extends string> = { name: Name; size?: number } & SVGProps<SVGSVGElement>;

/** A 24x24 line icon (stroke = currentColor) drawn from its path data, inline so no icon font is loaded. */
export function drawIcon(d: string, { size = 22, ...rest }: Omit<IconProps<string>, 'name'>) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      <path d={d} />
    </svg>
  );
}

export function Icon({ name, ...rest }: IconProps<IconName>) {
  return drawIcon(CORE_PATHS[name], rest);
}
