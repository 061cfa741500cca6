#!/usr/bin/env node
// Holds and settlements through the ledger, as a reply takes them (no HTTP operation takes a hold on its own): the
// built backend of `dir` in this process (CoreModule + RewardsModule, the API's own providers and pool), `clients`
// loops each reserving a reply's hold (LedgerService.reserve, its own transaction) and settling it as a finished reply
// does (RewardsService.settleCharge in one transaction: the charge to platform:spending, the rewards share to
// platform:rewards, the rest released), for `seconds`. Started by bench/wallet.mjs with the bench API's environment;
// prints one JSON line: settled replies per second and p50/p99 ms of reserve + settle.
// Usage: node bench/wallet-holds.mjs <dir> <userId> <clients> <seconds>
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

const [dir, userId, clients, seconds] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
const req = createRequire(join(dir, 'backend', 'package.json'));
req('reflect-metadata');
const { Module } = req('@nestjs/common');
const { NestFactory } = req('@nestjs/core');
const dist = (p) => req(join(dir, 'backend/dist', p));
const { CoreModule } = dist('app.module.js');
const { RewardsModule } = dist('modules/rewards/rewards.module.js');
const { LedgerService } = dist('modules/wallet/ledger.service.js');
const { RewardsService } = dist('modules/rewards/rewards.service.js');
const { Transactions } = dist('database/repository.js');
const { loadConfig } = dist('config/config.js');

class HoldsBench {}
Module({ imports: [CoreModule.forRoot(loadConfig()), RewardsModule] })(HoldsBench);
const ctx = await NestFactory.createApplicationContext(HoldsBench, { logger: ['error'] });
const ledger = ctx.get(LedgerService);
const rewards = ctx.get(RewardsService);
const transactions = ctx.get(Transactions);

const HOLD = 600; // a reply's hold (units): prompt + max_tokens at the tiny model's price
const USED = 350; // what the reply used
const latencies = [];
let done = 0;
let errors = 0;
const until = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      try {
        const streamId = `bench_${randomUUID()}`;
        const { holdId } = await ledger.reserve(userId, HOLD, 'AI reply (bench)', streamId);
        await transactions.run((tx) => rewards.settleCharge(holdId, USED, randomUUID(), tx));
        latencies.push(performance.now() - t0);
        done++;
      } catch (err) {
        if (errors++ === 0) console.error(err);
      }
    }
  }),
);
latencies.sort((a, b) => a - b);
const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
console.log(JSON.stringify({ perSecond: done / seconds, p50: q(0.5), p99: q(0.99), errors }));
await ctx.close();
