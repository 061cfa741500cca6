import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { EarningsChart } from './EarningsChart';
import { ME, signIn } from './testing';

/** 30 UTC days ending 2026-11-30; earnings on the 10th (75 GLOB, 2 tasks) and the 30th (37.5 GLOB, 1 task). */
const DAYS = Array.from({ length: 30 }, (_, i) => {
  const date = `2026-11-${String(i + 1).padStart(2, '0')}`;
  const amount = i === 9 ? 75 : i === 29 ? 37.5 : 0;
  return { date, amount, tasks: amount === 75 ? 2 : amount ? 1 : 0 };
});

beforeEach(() => signIn());
afterEach(() => localStorage.clear());

describe('EarningsChart', () => {
  it('draws one bar per day of GET earnings?days=30, with a text summary and a table of the figures', async () => {
    const asked: (string | null)[] = [];
    server.use(
      http.get('/api/wallet/{userId}/earnings', ({ request, response }) => {
        asked.push(new URL(request.url).searchParams.get('days'));
        return response(200).json({ days: 30, total: 112.5, earnings: DAYS });
      }),
    );
    await renderWithProviders(<EarningsChart userId={ME.id} />);
    const chart = await screen.findByRole('img', {
      name: '112.5 GLOB earned in the last 30 days from 3 tasks; best day Nov 10 with 75 GLOB.',
    });
    expect(asked).toEqual(['30']);
    expect(screen.getByRole('heading', { level: 2, name: 'Earnings (Last 30 Days)' })).toBeInTheDocument();
    const bars = chart.querySelectorAll('rect');
    expect(bars).toHaveLength(30);
    expect(chart.querySelectorAll('rect.zero')).toHaveLength(28);
    const tallest = chart.querySelector('rect[data-date="2026-11-10"]')!;
    const other = chart.querySelector('rect[data-date="2026-11-30"]')!;
    expect(Number(tallest.getAttribute('height'))).toBeCloseTo(2 * Number(other.getAttribute('height')), 5);
    expect(tallest.querySelector('title')).toHaveTextContent('Nov 10: 75 GLOB');

    await userEvent.click(screen.getByText('Show daily earnings as a table'));
    const table = screen.getByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    expect(rows[9]).toHaveTextContent('Nov 1075 GLOB2');
    expect(rows[0]).toHaveTextContent('Nov 10 GLOB0');
  });

  it('says so when nothing was earned', async () => {
    server.use(
      http.get('/api/wallet/{userId}/earnings', ({ response }) =>
        response(200).json({ days: 30, total: 0, earnings: DAYS.map((d) => ({ ...d, amount: 0, tasks: 0 })) }),
      ),
    );
    await renderWithProviders(<EarningsChart userId={ME.id} />);
    const chart = await screen.findByRole('img', {
      name: 'No earnings in the last 30 days. Share resources with the desktop app to earn GLOB.',
    });
    expect(chart.querySelectorAll('rect.zero')).toHaveLength(30);
  });
});
