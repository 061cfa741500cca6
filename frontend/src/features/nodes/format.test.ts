import { formatBytes, layerSummary } from './format';

describe('node formats', () => {
  it('sizes in GB from 1 GB, in MB below it, so a small model or allocation never reads as 0 GB', () => {
    expect(formatBytes(32 * 1024 ** 3)).toBe('32 GB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GB');
    expect(formatBytes(48 * 1024 ** 2)).toBe('48 MB');
    expect(formatBytes(43_342_080)).toBe('41.3 MB');
  });

  it('a member’s part of the layers', () => {
    expect(layerSummary(4, 12, 1 / 3)).toBe('4 of 12 layers · 33.3%');
  });
});
