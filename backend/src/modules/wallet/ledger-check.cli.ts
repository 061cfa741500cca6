/* npm run ledger:check — reconciles the ledger of DATABASE_URL: balances (and their bonus parts) against their
 * entries, every transaction against zero, holds against pending transactions, and time: no hold or reply task
 * open past the longest possible reply. Exit 1 when anything disagrees. */
import 'reflect-metadata';
import { loadConfig } from '../../config/config';
import { createDataSource } from '../../database/data-source';
import { TasksService } from '../inference/tasks.service';
import { LedgerService } from './ledger.service';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await createDataSource(config).initialize();
  try {
    const problems = [
      ...(await new LedgerService(db, config, undefined as never).reconcile()),
      ...(await TasksService.stuck(db.manager, config.inference.replyTimeoutSeconds)),
    ];
    const [{ accounts, transactions }] = (await db.query(
      `SELECT (SELECT count(*) FROM ledger_accounts)::int AS accounts, (SELECT count(*) FROM ledger_transactions)::int AS transactions`,
    )) as [{ accounts: number; transactions: number }];
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
