/* npm run ledger:check — reconciles the ledger of DATABASE_URL: balances (and their bonus parts) against their
 * entries, every transaction against zero, holds against pending transactions; the supply: only purchases, bonuses
 * and the emission issue GLOB, the rewards account never goes negative, every refund is a failed check's charge;
 * rewards: the emission within REWARD_EMISSION_GLOB_PER_DAY and shared out no more than it minted, every earning a
 * recorded reward for someone else's paid task, never above its charge nor paying its bonus part as transferable,
 * every node's kept figures (earned, pending) what its rewards add up to;
 * API keys: each key's usage equals its replies and
 * their settled spending, within its daily limit; and time: no hold or reply task open past the longest possible
 * reply. Exit 1 when anything disagrees. */
import 'reflect-metadata';
import { loadConfig } from './config/config';
import { createDataSource } from './database/data-source';
import { ApiKeysRepository } from './modules/api-keys/api-keys.repository';
import { apiKeyProblems } from './modules/api-keys/api-keys.service';
import { TasksRepository } from './modules/inference/tasks.repository';
import { stuckTasks } from './modules/inference/tasks.service';
import { Transactions } from './database/repository';
import { LedgerRepository } from './modules/wallet/ledger.repository';
import { LedgerService } from './modules/wallet/ledger.service';
import { RewardsRepository } from './modules/rewards/rewards.repository';
import { RewardsService } from './modules/rewards/rewards.service';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await createDataSource(config).initialize();
  try {
    const ledger = new LedgerRepository(db);
    // Reconciling reads only; the services' other collaborators are never called.
    const problems = [
      ...(await new LedgerService(ledger, new Transactions(db), config, undefined as never).reconcile()),
      ...(await new RewardsService(
        new RewardsRepository(db),
        undefined as never,
        undefined as never,
        new Transactions(db),
        config,
        undefined as never,
      ).reconcile()),
      ...(await stuckTasks(new TasksRepository(db, config), config.inference.replyTimeoutSeconds)),
      ...(await apiKeyProblems(new ApiKeysRepository(db))),
    ];
    const { accounts, transactions } = await ledger.size();
    if (problems.length) {
      console.error(`Ledger does NOT reconcile (${problems.length} problem(s)):\n${problems.map((p) => `  ${p}`).join('\n')}`);
      process.exitCode = 1;
    } else {
      console.log(`Ledger reconciles: ${accounts} accounts, ${transactions} transactions.`);
    }
  } finally {
    await db.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
