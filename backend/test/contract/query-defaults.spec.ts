import { randomUUID } from 'node:crypto';
import { loadSpec } from '../../src/contract/spec';
import { ChatService } from '../../src/modules/chat/chat.service';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { WalletService } from '../../src/modules/wallet/wallet.service';
import { startStack, type TestStack } from '../support/app';
import { newUser } from '../support/users';

type Param = { name: string; in: string; schema?: { default?: unknown } };
type Operation = { operationId?: string; parameters?: Param[] };

/** The spec's default of one query parameter of an operation. */
function specDefault(operationId: string, name: string): unknown {
  for (const item of Object.values(loadSpec().paths) as Array<Record<string, Operation>>) {
    for (const op of Object.values(item)) {
      if (op?.operationId !== operationId) continue;
      const param = op.parameters?.find((p) => p.in === 'query' && p.name === name);
      if (param?.schema?.default === undefined) throw new Error(`${operationId}'s ${name} has no default in the spec`);
      return param.schema.default;
    }
  }
  throw new Error(`The spec has no operation ${operationId}`);
}

/**
 * The controllers do not restate the spec's query defaults (QueryParams<K, 'limit'>): the request validator fills them
 * in, coerced to their types, before a controller runs. (Not a default beside a $ref, such as exportConversation's
 * format: its controller applies it, and this checks it is the spec's.)
 */
describe('contract: query parameters left out take the spec’s defaults', () => {
  let stack: TestStack;
  let user: Awaited<ReturnType<typeof newUser>>;
  beforeAll(async () => {
    stack = await startStack();
    user = await newUser(stack, 'defaults');
  });
  afterAll(() => stack.close());
  afterEach(() => jest.restoreAllMocks());

  // The call, the service method the controller hands the parameter to, and the argument it is.
  const cases: Array<[string, string, (id: string) => string, () => { mock: { calls: unknown[][] } }]> = [
    ['getWalletHistory', 'limit', (id) => `/api/wallet/${id}/history`, () => jest.spyOn(WalletService.prototype, 'history')],
    ['getEarnings', 'days', (id) => `/api/wallet/${id}/earnings`, () => jest.spyOn(WalletService.prototype, 'earnings')],
    ['listTransactions', 'limit', (id) => `/api/users/${id}/transactions`, () => jest.spyOn(WalletService.prototype, 'history')],
    ['listNotifications', 'limit', (id) => `/api/users/${id}/notifications`, () => jest.spyOn(NotificationsService.prototype, 'list')],
    ['exportConversation', 'format', () => `/api/chat/conversations/${randomUUID()}/export`, () => jest.spyOn(ChatService.prototype, 'export')],
  ];

  it.each(cases)('%s: %s', async (op, param, url, spyOn) => {
    const spy = spyOn();
    await stack.http.get(url(user.id)).set(user.auth);
    expect(spy.mock.calls).toHaveLength(1);
    // (caller, owner or conversation id, the parameter, …)
    expect(spy.mock.calls[0]![2]).toBe(specDefault(op, param));
  });

  it('listConversations', async () => {
    const spy = jest.spyOn(ChatService.prototype, 'list');
    await stack.http.get('/api/chat/conversations').set(user.auth).expect(200);
    expect(spy.mock.calls[0]![1]).toMatchObject({ limit: specDefault('listConversations', 'limit') });
    // A value given is coerced to the parameter's type.
    await stack.http.get('/api/chat/conversations?limit=7').set(user.auth).expect(200);
    expect(spy.mock.calls[1]![1]).toMatchObject({ limit: 7 });
  });
});
