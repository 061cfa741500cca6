import { loadSpec } from '../../src/contract/spec';
import { expectSpecResponse, expectSpecSchema, operation } from '../support/contract';
import { startStack, TestStack } from '../support/app';

type MediaExamples = Record<string, { example?: unknown }>;
const spec = loadSpec() as unknown as {
  paths: Record<string, { post: { requestBody: { content: MediaExamples }; responses: Record<string, { content?: MediaExamples }> } }>;
};
const post = spec.paths['/v1/completions']!.post;

describe('contract: POST /v1/completions (createCompletion)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);
  afterAll(async () => {
    await stack.close();
  });

  it('documents the operation under the openai tag, authenticated with an API key', () => {
    expect(operation('createCompletion')).toMatchObject({ path: '/v1/completions', method: 'post' });
    expect(post).toMatchObject({ tags: ['openai'], security: [{ apiKey: [] }] });
  });

  it("its examples match its schemas: the request, the JSON answer, and each streamed chunk (OpenAI's text_completion) up to [DONE]", () => {
    expectSpecSchema('CompletionRequest', post.requestBody.content['application/json']!.example);
    expectSpecSchema('Completion', post.responses['200']!.content!['application/json']!.example);
    const lines = String(post.responses['200']!.content!['text/event-stream']!.example)
      .split('\n\n')
      .map((block) => /^data: (.*)$/m.exec(block)?.[1])
      .filter((d): d is string => !!d);
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((d) => JSON.parse(d) as { object: string; usage: unknown });
    for (const chunk of chunks) expectSpecSchema('CompletionChunk', chunk);
    expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
    expect(chunks.at(-1)!.usage).not.toBeNull();
  });

  it.each([
    ['echo', { echo: true }],
    ['suffix', { suffix: 'end' }],
    ['best_of', { best_of: 2 }],
    ['frequency_penalty', { frequency_penalty: 1 }],
  ])('refuses %s (a parameter it does not serve) with 400 in OpenAI’s shape naming it', async (param, extra) => {
    const res = await stack.http.post('/v1/completions').send({ model: 'glob-tiny-chat', prompt: 'Hi', ...extra });
    expectSpecResponse(res, 'createCompletion');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param, code: 'unsupported_parameter', type: 'invalid_request_error' });
  });

  it('refuses more than one prompt, and token-id prompts, with 400 naming prompt', async () => {
    for (const prompt of [
      ['one', 'two'],
      [1, 2, 3],
    ]) {
      const res = await stack.http.post('/v1/completions').send({ model: 'glob-tiny-chat', prompt });
      expectSpecResponse(res, 'createCompletion');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param: 'prompt', type: 'invalid_request_error' });
    }
  });

  it('a valid request without an API key is 401', async () => {
    const res = await stack.http.post('/v1/completions').send({ model: 'glob-tiny-chat', prompt: 'Hi' });
    expectSpecResponse(res, 'createCompletion');
    expect(res.status).toBe(401);
  });
});
