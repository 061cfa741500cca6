import { describe, expect, it } from '@jest/globals';
import { render } from '@testing-library/react';
import { CORE_PATHS, Icon as CoreIcon, type IconName as CoreIconName } from './CoreIcon';
import { Icon } from './Icon';

describe('icons', () => {
  it('draws the site frame and home page icons (CoreIcon) exactly as Icon does', () => {
    for (const name of Object.keys(CORE_PATHS) as CoreIconName[]) {
      const core = render(<CoreIcon name={name} size={18} className="x" />).container.innerHTML;
      const full = render(<Icon name={name} size={18} className="x" />).container.innerHTML;
      expect(core).toBe(full);
      expect(core).toContain(`d="${CORE_PATHS[name]}"`);
    }
  });

  it('draws a 24x24 line icon hidden from assistive technology, 22 px by default', () => {
    const svg = render(<Icon name="github" />).container.querySelector('svg')!;
    expect(svg).toHaveAttribute('width', '22');
    expect(svg).toHaveAttribute('viewBox', '0 0 24 24');
    expect(svg).toHaveAttribute('aria-hidden', 'true');
    expect(svg.querySelector('path')?.getAttribute('d')).toMatch(/^M9 19c-4/);
  });
});
