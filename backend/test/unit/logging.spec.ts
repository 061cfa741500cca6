import { Logger } from '@nestjs/common';
import { createLogger, currentRequestId, NestPinoLogger, requestIdFrom, withRequestId } from '../../src/observability/logging';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('keeps a sane incoming X-Request-Id', () => {
    for (const id of ['abcdefgh', 'req-1234.5678_x:y', 'A'.repeat(128), '4bf92f3577b34da6a3ce929d0e0e4736']) expect(requestIdFrom(id)).toBe(id);
  });

  it('replaces anything else with a random UUID', () => {
    const bad = [undefined, '', 'short', 'A'.repeat(129), 'has space in it', 'line\nbreak-injection', '{"json":"x"}', 'ünïcödé-id', ['a', 'b']];
    for (const header of bad) expect(requestIdFrom(header)).toMatch(UUID);
    expect(requestIdFrom(undefined)).not.toBe(requestIdFrom(undefined));
  });

  it('is the id of the work in hand within withRequestId, nested contexts keep the HTTP request apart', async () => {
    expect(currentRequestId()).toBeUndefined();
    await withRequestId('outer-request', async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(currentRequestId()).toBe('outer-request');
      withRequestId('inner-request', () => expect(currentRequestId()).toBe('inner-request'));
      withRequestId(undefined, () => expect(currentRequestId()).toBe('outer-request'));
    });
    expect(currentRequestId()).toBeUndefined();
  });
});

describe('NestPinoLogger', () => {
  const capture = (level: 'log' | 'debug' | 'verbose' | 'warn' = 'debug') => {
    const lines: Array<Record<string, unknown>> = [];
    const pino = createLogger(
      { logLevel: level, logFormat: 'json' },
      { name: 'api', destination: { write: (s: string) => lines.push(JSON.parse(s)) } },
    );
    return { lines, logger: new NestPinoLogger(pino) };
  };

  it("writes Nest's Logger calls as JSON lines: level, time, context, msg, and req_id inside a request", () => {
    const { lines, logger } = capture();
    Logger.overrideLogger(logger);
    new Logger('Ctx').log('plain');
    withRequestId('request-0001', () => new Logger('Ctx').warn({ msg: 'with fields', job_id: 'j1' }));
    withRequestId('request-0001', () => withRequestId('request-0002', () => new Logger('Ctx').debug('nested')));
    new Logger('Ctx').error('failed', 'Error: x\n    at y');
    new Logger('Ctx').verbose('below the level');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', context: 'Ctx', msg: 'plain', name: 'api' }),
      expect.objectContaining({ level: 'warn', context: 'Ctx', msg: 'with fields', job_id: 'j1', req_id: 'request-0001' }),
      expect.objectContaining({ level: 'debug', msg: 'nested', req_id: 'request-0002', http_req_id: 'request-0001' }),
      expect.objectContaining({ level: 'error', msg: 'failed', stack: 'Error: x\n    at y' }),
    ]);
    for (const line of lines) expect(new Date(line.time as string).getTime()).toBeGreaterThan(0);
    expect(lines[0]).not.toHaveProperty('req_id');
  });

  it("maps LOG_LEVEL (Nest's names) to pino's, and keeps Nest's start-up chatter at debug", () => {
    const { lines, logger } = capture('log');
    logger.log('module ready', 'InstanceLoader');
    logger.debug('hidden', 'Ctx');
    logger.log('shown', 'Ctx');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
    expect(capture('verbose').logger.pino.level).toBe('trace');
  });

  it('redacts credentials given as fields', () => {
    const { lines, logger } = capture();
    logger.log({ msg: 'x', headers: { authorization: 'Bearer secret-token', cookie: 'sid=1' }, password: 'hunter2' }, 'Ctx');
    expect(JSON.stringify(lines)).not.toMatch(/secret-token|sid=1|hunter2/);
  });
});
