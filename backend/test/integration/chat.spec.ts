import { ChatService } from '../../src/modules/chat/chat.service';
import { expectSpecResponse, spec } from '../support/contract';
import { newUser } from '../support/users';
import { startStack, TestStack } from '../support/app';

describe('chat: conversations saved on the server', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  async function conversation(u: { auth: Record<string, string> }, title?: string) {
    const res = await stack.http
      .post('/api/chat/conversations')
      .set(u.auth)
      .send({ ...(title ? { title } : {}), model_id: 'glob-tiny-chat' })
      .expect(201);
    expectSpecResponse(res, 'createConversation');
    return res.body.conversation as { id: string; conversation_id: string; title: string; settings: object };
  }

  it('saves a model reply that contains a NUL byte without it (PostgreSQL cannot store one)', async () => {
    const u = await newUser(stack, 'nulreply');
    const c = await conversation(u, 'Odd bytes');
    await stack.db.transaction((em) =>
      stack.app
        .get(ChatService)
        .saveReply(c.id, { content: 'a\u0000b\u0000c', tokens: 3, model: 'glob-tiny-chat', status: 'sent', stopped: false, promptTokens: 0 }, em),
    );
    const got = await stack.http.get(`/api/chat/conversations/${c.id}`).set(u.auth).expect(200);
    expect(got.body.conversation.messages.map((m: { content: string }) => m.content)).toEqual(['abc']);
  });

  it('lives: create (default title), add messages, read in order with totals, rename, pin, export, delete', async () => {
    const u = await newUser(stack, 'talker');
    const c = await conversation(u);
    expect(c).toMatchObject({ title: 'New Conversation', conversation_id: c.id });
    for (const [role, content, tokens] of [
      ['user', 'What is a GPU?', 5],
      ['assistant', 'A graphics processor.', 4],
    ] as const) {
      const m = await stack.http
        .post(`/api/chat/conversations/${c.id}/messages`)
        .set(u.auth)
        .send({ message: { role, content, tokens, model: 'glob-tiny-chat' } })
        .expect(201);
      expectSpecResponse(m, 'addMessage');
      expect(m.body.message).toMatchObject({ role, content, status: 'sent', tokens });
    }
    const got = await stack.http.get(`/api/chat/conversations/${c.id}`).set(u.auth).expect(200);
    expectSpecResponse(got, 'getConversation');
    expect(got.body.conversation.messages.map((m: { content: string }) => m.content)).toEqual(['What is a GPU?', 'A graphics processor.']);
    expect(got.body.conversation.metadata).toEqual({ total_messages: 2, total_tokens: 9 });

    const renamed = await stack.http.put(`/api/chat/conversations/${c.id}`).set(u.auth).send({ title: '  GPUs explained  ' }).expect(200);
    expectSpecResponse(renamed, 'updateConversation');
    expect(renamed.body.conversation.title).toBe('GPUs explained');
    const pinned = await stack.http.put(`/api/chat/conversations/${c.id}`).set(u.auth).send({ is_pinned: true }).expect(200);
    expect(pinned.body.conversation.is_pinned).toBe(true);

    const json = await stack.http.get(`/api/chat/conversations/${c.id}/export?format=json`).set(u.auth).expect(200);
    expectSpecResponse(json, 'exportConversation');
    expect(json.body).toMatchObject({ filename: 'gpus-explained.json', format: 'json', mime_type: 'application/json' });
    expect(JSON.parse(json.body.content)).toMatchObject({
      id: c.id,
      title: 'GPUs explained',
      messages: [{ content: 'What is a GPU?' }, { content: 'A graphics processor.' }],
    });
    const md = await stack.http.get(`/api/chat/conversations/${c.id}/export?format=markdown`).set(u.auth).expect(200);
    expect(md.body).toMatchObject({ filename: 'gpus-explained.md', format: 'markdown', mime_type: 'text/markdown' });
    expect(md.body.content).toMatch(/^# GPUs explained\n/);
    expect(md.body.content).toContain('### User\n');
    expect(md.body.content).toContain('What is a GPU?');
    expect(md.body.content).toContain('### Assistant\n');

    const del = await stack.http.delete(`/api/chat/conversations/${c.id}`).set(u.auth).expect(204);
    expectSpecResponse(del, 'deleteConversation');
    await stack.http.get(`/api/chat/conversations/${c.id}`).set(u.auth).expect(404);
    const left = (await stack.db.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1`, [c.id])) as Array<{ n: number }>;
    expect(left[0]!.n).toBe(0);
  });

  it('keeps a system prompt and sampling parameters per conversation: defaults, given at creation, updated, exported', async () => {
    const u = await newUser(stack, 'settings');
    const plain = await conversation(u);
    expect(plain.settings).toEqual({ system_prompt: '', temperature: 0.7, max_tokens: 2048, top_p: 0.9 });
    const settings = { system_prompt: 'You answer like a pirate.', temperature: 0.2, max_tokens: 256, top_p: 0.5 };
    const made = await stack.http.post('/api/chat/conversations').set(u.auth).send({ model_id: 'glob-tiny-chat', settings }).expect(201);
    expect(made.body.conversation.settings).toEqual(settings);
    const id = made.body.conversation.id as string;
    const changed = { ...settings, system_prompt: 'You answer in one sentence.', temperature: 1.1 };
    const updated = spec(await stack.http.put(`/api/chat/conversations/${id}`).set(u.auth).send({ settings: changed }), 'updateConversation');
    expect(updated.status).toBe(200);
    expect(updated.body.conversation.settings).toEqual(changed);
    expect((await stack.http.get(`/api/chat/conversations/${id}`).set(u.auth).expect(200)).body.conversation.settings).toEqual(changed);
    const md = await stack.http.get(`/api/chat/conversations/${id}/export`).query({ format: 'markdown' }).set(u.auth).expect(200);
    expect(md.body.content).toContain('### System prompt\n\nYou answer in one sentence.');
    expect(md.body.content).toContain('Temperature 1.1 · max tokens 256 · top_p 0.5');
    // Out of range, incomplete or unknown: 400 in the Error shape, nothing changed.
    for (const bad of [
      { ...changed, temperature: 3 },
      { system_prompt: 'x' },
      { ...changed, seed: 1 },
      { ...changed, system_prompt: 'y'.repeat(8001) },
    ]) {
      const res = spec(await stack.http.put(`/api/chat/conversations/${id}`).set(u.auth).send({ settings: bad }), 'updateConversation');
      expect(res.status).toBe(400);
    }
    expect((await stack.http.get(`/api/chat/conversations/${id}`).set(u.auth).expect(200)).body.conversation.settings).toEqual(changed);
  });

  it('refuses blank or overlong titles and empty updates', async () => {
    const u = await newUser(stack, 'namer');
    const c = await conversation(u, 'Original');
    for (const body of [{ title: '   ' }, { title: 'x'.repeat(201) }, {}]) {
      const res = await stack.http.put(`/api/chat/conversations/${c.id}`).set(u.auth).send(body).expect(400);
      expectSpecResponse(res, 'updateConversation');
    }
    expect((await stack.http.get(`/api/chat/conversations/${c.id}`).set(u.auth).expect(200)).body.conversation.title).toBe('Original');
  });

  it('lists pinned first, then most recently updated; pages with a cursor; searches titles and message text', async () => {
    const u = await newUser(stack, 'lister');
    const a = await conversation(u, 'Alpha about Rust');
    const b = await conversation(u, 'Beta');
    const c = await conversation(u, 'Gamma');
    await stack.http
      .post(`/api/chat/conversations/${b.id}/messages`)
      .set(u.auth)
      .send({ message: { role: 'user', content: 'Tell me about QUANTUM computers' } })
      .expect(201);
    await stack.http.put(`/api/chat/conversations/${a.id}`).set(u.auth).send({ is_pinned: true }).expect(200);
    const list = await stack.http.get('/api/chat/conversations').set(u.auth).expect(200);
    expectSpecResponse(list, 'listConversations');
    expect(list.body.conversations.map((x: { title: string }) => x.title)).toEqual(['Alpha about Rust', 'Beta', 'Gamma']);
    expect(list.body.conversations[1].last_message_preview).toBe('Tell me about QUANTUM computers');

    const p1 = await stack.http.get('/api/chat/conversations?limit=2').set(u.auth).expect(200);
    const p2 = await stack.http.get(`/api/chat/conversations?limit=2&cursor=${p1.body.next_cursor}`).set(u.auth).expect(200);
    expect([...p1.body.conversations, ...p2.body.conversations].map((x: { id: string }) => x.id)).toEqual([a.id, b.id, c.id]);
    expect(p2.body.next_cursor).toBeNull();

    const byText = await stack.http.get('/api/chat/conversations?search=quantum').set(u.auth).expect(200);
    expect(byText.body.conversations.map((x: { id: string }) => x.id)).toEqual([b.id]);
    const byTitle = await stack.http.get('/api/chat/conversations?search=RUST').set(u.auth).expect(200);
    expect(byTitle.body.conversations.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const literal = await stack.http.get('/api/chat/conversations?search=%25').set(u.auth).expect(200);
    expect(literal.body.conversations).toEqual([]);
  });

  it("answers 404 for another user's conversation on every operation, never revealing it", async () => {
    const owner = await newUser(stack, 'owner');
    const other = await newUser(stack, 'other');
    const c = await conversation(owner, 'Private');
    const calls: Array<[string, () => import('supertest').Test]> = [
      ['getConversation', () => stack.http.get(`/api/chat/conversations/${c.id}`)],
      ['updateConversation', () => stack.http.put(`/api/chat/conversations/${c.id}`).send({ title: 'Mine now' })],
      ['deleteConversation', () => stack.http.delete(`/api/chat/conversations/${c.id}`)],
      ['addMessage', () => stack.http.post(`/api/chat/conversations/${c.id}/messages`).send({ message: { role: 'user', content: 'hi' } })],
      ['exportConversation', () => stack.http.get(`/api/chat/conversations/${c.id}/export?format=json`)],
    ];
    for (const [op, call] of calls) {
      const res = await call().set(other.auth).expect(404);
      expectSpecResponse(res, op);
      expect(res.body.message).toBe('Conversation not found');
    }
    const list = await stack.http.get('/api/chat/conversations?search=Private').set(other.auth).expect(200);
    expect(list.body.conversations).toEqual([]);
    expect((await stack.http.get(`/api/chat/conversations/${c.id}`).set(owner.auth).expect(200)).body.conversation.title).toBe('Private');
  });
});
