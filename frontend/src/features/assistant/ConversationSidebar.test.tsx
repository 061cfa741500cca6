import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { server } from '../../mocks/node';
import { chatCache } from './cache';
import { COLLAPSED_LIMIT, LAST_CONVERSATION_KEY, TEXT } from './texts';
import { renderAssistant, signIn, summary } from './testing';

const API = 'http://localhost/api';
const LIST = example('/api/chat/conversations', 'get', 200);
const [TRIP, PYTHON] = LIST.conversations as [(typeof LIST.conversations)[number], (typeof LIST.conversations)[number]];

beforeEach(async () => {
  localStorage.clear();
  await chatCache.clear();
  signIn();
});

async function ready() {
  const user = userEvent.setup();
  await renderAssistant();
  await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });
  return user;
}

const sidebar = () => screen.getByRole('region', { name: 'Conversations' });
const openActions = async (user: ReturnType<typeof userEvent.setup>, title: string) => {
  await user.click(await within(sidebar()).findByRole('button', { name: `Actions for ${title}` }));
  return within(sidebar()).getByRole('group', { name: `Actions for ${title}` });
};

/** Records PUT bodies and answers with the updated conversation. */
function onUpdate(status = 200) {
  const puts: Array<{ id: string; body: unknown }> = [];
  server.use(
    plain.put(`${API}/chat/conversations/:id`, async ({ params, request }) => {
      puts.push({ id: String(params.id), body: await request.json() });
      return status === 200
        ? HttpResponse.json(example('/api/chat/conversations/{id}', 'put', 200))
        : HttpResponse.json({ message: 'boom' }, { status });
    }),
  );
  return puts;
}

describe('conversation sidebar', () => {
  it("lists pinned conversations under 'Pinned', then the others", async () => {
    await ready();
    const pinned = await within(sidebar()).findByRole('region', { name: 'Pinned' });
    expect(within(pinned).getByRole('button', { name: /^Trip plan for Lisbon/ })).toBeInTheDocument();
    expect(within(pinned).queryByRole('button', { name: /^Python list comprehensions/ })).toBeNull();
    const recent = within(sidebar()).getByRole('region', { name: 'Recent' });
    expect(within(recent).getByRole('button', { name: /^Python list comprehensions/ })).toBeInTheDocument();
    expect(within(recent).getByRole('button', { name: /^New Conversation/ })).toBeInTheDocument();
  });

  it('searches on the server once typing pauses', async () => {
    const searches: Array<string | null> = [];
    server.use(
      plain.get(`${API}/chat/conversations`, ({ request }) => {
        const search = new URL(request.url).searchParams.get('search');
        searches.push(search);
        const conversations = search ? LIST.conversations.filter((c) => c.title.toLowerCase().includes(search.toLowerCase())) : LIST.conversations;
        return HttpResponse.json({ conversations, next_cursor: null });
      }),
    );
    const user = await ready();
    await within(sidebar()).findByRole('button', { name: /^Python list comprehensions/ });
    await user.type(within(sidebar()).getByRole('searchbox', { name: 'Search conversations' }), 'lisbon');
    await waitFor(() => expect(within(sidebar()).queryByRole('button', { name: /^Python list comprehensions/ })).toBeNull());
    expect(within(sidebar()).getByRole('button', { name: /^Trip plan for Lisbon/ })).toBeInTheDocument();
    // One request when the page opened, one for the finished word — none per keystroke.
    expect(searches).toEqual([null, 'lisbon']);

    await user.clear(within(sidebar()).getByRole('searchbox', { name: 'Search conversations' }));
    await user.type(within(sidebar()).getByRole('searchbox', { name: 'Search conversations' }), 'zzz');
    expect(await within(sidebar()).findByText('No conversations match your search')).toBeInTheDocument();
    expect(within(sidebar()).queryByText(TEXT.noConversations)).toBeNull();
  });

  it('renames inline: Enter saves a changed title, Escape cancels, blank or unchanged titles are not sent', async () => {
    const puts = onUpdate();
    const user = await ready();

    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Rename' }));
    let input = within(sidebar()).getByRole('textbox', { name: 'Conversation title' });
    expect(input).toHaveValue(PYTHON.title);
    await user.clear(input);
    await user.type(input, 'Ignored{Escape}');
    expect(within(sidebar()).queryByRole('textbox', { name: 'Conversation title' })).toBeNull();
    expect(puts).toEqual([]);

    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Rename' }));
    input = within(sidebar()).getByRole('textbox', { name: 'Conversation title' });
    await user.clear(input);
    await user.type(input, '   {Enter}');
    expect(puts).toEqual([]);

    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Rename' }));
    input = within(sidebar()).getByRole('textbox', { name: 'Conversation title' });
    await user.type(input, '{Enter}');
    expect(puts).toEqual([]);

    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Rename' }));
    input = within(sidebar()).getByRole('textbox', { name: 'Conversation title' });
    await user.clear(input);
    await user.type(input, '  Comprehensions, explained  {Enter}');
    await waitFor(() => expect(puts).toEqual([{ id: PYTHON.id, body: { title: 'Comprehensions, explained' } }]));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows 'Failed to rename conversation' when the rename fails", async () => {
    onUpdate(500);
    const user = await ready();
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Rename' }));
    const input = within(sidebar()).getByRole('textbox', { name: 'Conversation title' });
    await user.type(input, '!{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to rename conversation');
  });

  it('pins and unpins for real (PUT is_pinned)', async () => {
    const puts = onUpdate();
    const user = await ready();
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Pin' }));
    await waitFor(() => expect(puts).toEqual([{ id: PYTHON.id, body: { is_pinned: true } }]));
    await user.click(within(await openActions(user, TRIP.title)).getByRole('button', { name: 'Unpin' }));
    await waitFor(() => expect(puts[1]).toEqual({ id: TRIP.id, body: { is_pinned: false } }));
  });

  it('deletes only after the confirmation, and reports a failed delete', async () => {
    const deletes: string[] = [];
    let fail = false;
    server.use(
      plain.delete(`${API}/chat/conversations/:id`, ({ params }) => {
        deletes.push(String(params.id));
        return fail ? HttpResponse.json({ message: 'boom' }, { status: 500 }) : new HttpResponse(null, { status: 204 });
      }),
    );
    const confirm = jest.spyOn(window, 'confirm').mockReturnValue(false);
    const user = await ready();
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Delete' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete this conversation?');
    expect(deletes).toEqual([]);

    confirm.mockReturnValue(true);
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deletes).toEqual([PYTHON.id]));
    expect(screen.queryByRole('alert')).toBeNull();

    fail = true;
    await user.click(within(await openActions(user, TRIP.title)).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to delete conversation');
  });

  it('deleting the open conversation goes back to a new one', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, PYTHON.id);
    server.use(plain.delete(`${API}/chat/conversations/:id`, () => new HttpResponse(null, { status: 204 })));
    jest.spyOn(window, 'confirm').mockReturnValue(true);
    const user = await ready();
    const log = screen.getByRole('log', { name: 'Messages' });
    expect(within(log).queryByText(TEXT.greeting)).toBeNull();
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Delete' }));
    expect(await within(log).findByText(TEXT.greeting)).toBeInTheDocument();
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
  });

  it("exports as a downloaded file with the server's name, and reports a failed export", async () => {
    const formats: Array<string | null> = [];
    let fail = false;
    server.use(
      plain.get(`${API}/chat/conversations/:id/export`, ({ request }) => {
        const format = new URL(request.url).searchParams.get('format');
        formats.push(format);
        if (fail) return HttpResponse.json({ message: 'boom' }, { status: 500 });
        return HttpResponse.json(
          format === 'json'
            ? { content: '{"title":"x"}', filename: 'python-list-comprehensions.json', format: 'json', mime_type: 'application/json' }
            : example('/api/chat/conversations/{id}/export', 'get', 200),
        );
      }),
    );
    const blobs: Blob[] = [];
    URL.createObjectURL = jest.fn((b: Blob) => {
      blobs.push(b);
      return `blob:mock/${blobs.length}`;
    }) as typeof URL.createObjectURL;
    URL.revokeObjectURL = jest.fn() as typeof URL.revokeObjectURL;
    const clicked: Array<{ href: string; download: string }> = [];
    jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
    });

    const user = await ready();
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Export JSON' }));
    await waitFor(() => expect(clicked).toEqual([{ href: 'blob:mock/1', download: 'python-list-comprehensions.json' }]));
    expect(blobs[0]!.type).toBe('application/json');
    expect(await blobs[0]!.text()).toBe('{"title":"x"}');

    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Export Markdown' }));
    await waitFor(() => expect(clicked[1]).toEqual({ href: 'blob:mock/2', download: 'python-list-comprehensions.md' }));
    expect(blobs[1]!.type).toBe('text/markdown');
    expect(formats).toEqual(['json', 'markdown']);

    fail = true;
    await user.click(within(await openActions(user, PYTHON.title)).getByRole('button', { name: 'Export JSON' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to export conversation');
    expect(clicked).toHaveLength(2);
  });

  it("shows 'No conversations yet' and 'Start your first conversation' when there are none", async () => {
    server.use(plain.get(`${API}/chat/conversations`, () => HttpResponse.json({ conversations: [], next_cursor: null })));
    const user = await ready();
    expect(await within(sidebar()).findByText('No conversations yet')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear conversation' }));
    await user.click(within(sidebar()).getByRole('button', { name: 'Start your first conversation' }));
    expect(within(screen.getByRole('log', { name: 'Messages' })).getByText(TEXT.greeting)).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus();
  });

  it("shows 'Failed to load conversations' with a Retry that loads them", async () => {
    let fail = true;
    server.use(
      plain.get(`${API}/chat/conversations`, () => (fail ? HttpResponse.json({ message: 'down' }, { status: 500 }) : HttpResponse.json(LIST))),
    );
    const user = await ready();
    const alert = await within(sidebar()).findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load conversations');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await within(sidebar()).findByRole('button', { name: /^Python list comprehensions/ })).toBeInTheDocument();
  });

  it('collapsed, shows only the 10 most recent conversations', async () => {
    // 15 conversations, listed pinned-first like the server does, with shuffled update times.
    const order = [3, 14, 1, 9, 12, 5, 0, 7, 11, 2, 13, 6, 10, 4, 8];
    const conversations = order.map((n, i) => summary(n, { is_pinned: i === 0 }));
    server.use(plain.get(`${API}/chat/conversations`, () => HttpResponse.json({ conversations, next_cursor: null })));
    const user = await ready();
    await within(sidebar()).findByRole('button', { name: /^Conversation 14/ });
    expect(within(sidebar()).getAllByRole('button', { name: /^Conversation \d+/ })).toHaveLength(15);

    const toggle = within(sidebar()).getByRole('button', { name: 'Collapse conversation list' });
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await user.click(toggle);
    expect(within(sidebar()).getByRole('button', { name: 'Expand conversation list' })).toHaveAttribute('aria-expanded', 'false');
    const recent = within(sidebar()).getByRole('list', { name: 'Recent conversations' });
    const titles = within(recent)
      .getAllByRole('button')
      .map((b) => b.textContent);
    expect(titles).toHaveLength(COLLAPSED_LIMIT);
    expect(titles).toEqual([
      'Conversation 14',
      'Conversation 13',
      'Conversation 12',
      'Conversation 11',
      'Conversation 10',
      'Conversation 9',
      'Conversation 8',
      'Conversation 7',
      'Conversation 6',
      'Conversation 5',
    ]);
    expect(within(sidebar()).queryByRole('searchbox')).toBeNull();

    await user.click(within(sidebar()).getByRole('button', { name: 'Expand conversation list' }));
    expect(within(sidebar()).getAllByRole('button', { name: /^Conversation \d+/ })).toHaveLength(15);
  });

  it('loads the next page with the cursor', async () => {
    const cursors: Array<string | null> = [];
    server.use(
      plain.get(`${API}/chat/conversations`, ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        cursors.push(cursor);
        return cursor
          ? HttpResponse.json({ conversations: [summary(1, { title: 'Older one' })], next_cursor: null })
          : HttpResponse.json({ conversations: [summary(2, { title: 'Newer one' })], next_cursor: 'page-2' });
      }),
    );
    const user = await ready();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Load more' }));
    expect(await within(sidebar()).findByRole('button', { name: /^Older one/ })).toBeInTheDocument();
    expect(within(sidebar()).getByRole('button', { name: /^Newer one/ })).toBeInTheDocument();
    expect(cursors).toEqual([null, 'page-2']);
    expect(within(sidebar()).queryByRole('button', { name: 'Load more' })).toBeNull();
  });
});
