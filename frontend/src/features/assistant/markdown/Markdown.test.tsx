import { describe, expect, it, jest } from '@jest/globals';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { REPLY_TEXT } from '../reply-texts';
import { Markdown } from './Markdown';

const FIXTURE = [
  '# Plan',
  '',
  'Some **bold**, *italic*, ~~struck~~ and `inline code`, and a link to [the docs](https://example.com/docs).',
  '',
  '- one',
  '- two',
  '',
  '1. first',
  '2. second',
  '',
  '- [x] done',
  '- [ ] to do',
  '',
  '> quoted',
  '',
  '| model | tokens/s |',
  '| --- | ---: |',
  '| tiny | 763.5 |',
  '',
  '```python',
  'def add(a, b):',
  '    return a + b',
  '```',
  '',
  '```',
  'plain block',
  '```',
].join('\n');

describe('a reply rendered as Markdown', () => {
  it('renders GitHub-flavoured Markdown: headings, emphasis, lists, task lists, quotes, tables, code', async () => {
    const { container } = render(<Markdown text={FIXTURE} streaming={false} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Plan' })).toBeInTheDocument();
    expect(container.querySelector('strong')).toHaveTextContent('bold');
    expect(container.querySelector('em')).toHaveTextContent('italic');
    expect(container.querySelector('del')).toHaveTextContent('struck');
    expect(container.querySelector(':not(pre) > code')).toHaveTextContent('inline code');
    expect(container.querySelectorAll('ul > li')).toHaveLength(4);
    expect(container.querySelectorAll('ol > li')).toHaveLength(2);
    const boxes = container.querySelectorAll<HTMLInputElement>('input[type="checkbox"]');
    expect([...boxes].map((b) => [b.checked, b.disabled])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect(container.querySelector('blockquote')).toHaveTextContent('quoted');
    const table = screen.getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['model', 'tokens/s']);
    expect(within(table).getByRole('cell', { name: '763.5' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: REPLY_TEXT.tableLabel })).toContainElement(table);

    const link = screen.getByRole('link', { name: 'the docs' });
    expect(link).toHaveAttribute('href', 'https://example.com/docs');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');

    const blocks = container.querySelectorAll('figure.md-code');
    expect(blocks).toHaveLength(2);
    expect(within(blocks[0] as HTMLElement).getByText('python')).toBeInTheDocument();
    expect(within(blocks[1] as HTMLElement).getByText(REPLY_TEXT.codeLabel)).toBeInTheDocument();
    // Highlighting arrives from its own chunk: the Python keyword becomes highlight.js's span, the text unchanged.
    await waitFor(() => expect(blocks[0]!.querySelector('.hljs-keyword')).toHaveTextContent('def'));
    expect(blocks[0]!.querySelector('code')!.textContent).toBe('def add(a, b):\n    return a + b');
  });

  it('shows an image as a link to it, never loading it', () => {
    const { container } = render(<Markdown text="![a chart](https://tracker.example/pixel.png)" streaming={false} />);
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('link', { name: 'a chart' })).toHaveAttribute('href', 'https://tracker.example/pixel.png');
  });

  it('copies a code block with its button and says Copied', async () => {
    const user = userEvent.setup();
    render(<Markdown text={'```js\nconsole.log(1);\n```'} streaming={false} />);
    const written = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: REPLY_TEXT.copyCode }));
    expect(written).toHaveBeenCalledWith('console.log(1);');
    expect(screen.getByText(REPLY_TEXT.copied)).toBeInTheDocument();
  });

  it('leaves code plain while the reply streams, so nothing changes under the reader until it ends', async () => {
    const text = '```python\ndef f():\n    pass\n```';
    const { container, rerender } = render(<Markdown text={text} streaming />);
    await new Promise((r) => setTimeout(r, 50));
    expect(container.querySelector('.hljs-keyword')).toBeNull();
    rerender(<Markdown text={text} streaming={false} />);
    await waitFor(() => expect(container.querySelector('.hljs-keyword')).not.toBeNull());
  });

  it('renders hostile content inert: no script, no event handler, no javascript: link, no image fetched, no raw HTML', () => {
    const hostile = [
      '<script>window.__pwned = true</script>',
      '<img src="x" onerror="window.__pwned = true">',
      '[click me](javascript:window.__pwned=true)',
      '<a href="javascript:alert(1)">raw link</a>',
      '<iframe src="https://evil.example"></iframe>',
      '![pic](javascript:alert(1))',
    ].join('\n\n');
    const { container } = render(<Markdown text={hostile} streaming={false} />);
    expect(container.querySelector('script, iframe, img, [onerror]')).toBeNull();
    for (const el of container.querySelectorAll('[href], [src]')) {
      expect(el.getAttribute('href') ?? el.getAttribute('src')).not.toMatch(/^\s*javascript:/i);
    }
    expect(screen.getByText('click me').closest('a')?.getAttribute('href') ?? '').toBe('');
    expect((window as { __pwned?: boolean }).__pwned).toBeUndefined();
  });

  it('renders a 50 KB code block as one block of plain, escaped text', async () => {
    const line = 'const x = "<b>not bold</b>"; // ' + 'y'.repeat(60) + '\n';
    const big = line.repeat(Math.ceil(50_000 / line.length));
    const { container } = render(<Markdown text={'```\n' + big + '```'} streaming={false} />);
    const code = container.querySelector('figure.md-code code')!;
    expect(code.textContent!.length).toBeGreaterThanOrEqual(50_000);
    expect(container.querySelector('b')).toBeNull();
    await waitFor(() => expect(code.textContent).toBe(big.replace(/\n$/, '')));
  });
});
