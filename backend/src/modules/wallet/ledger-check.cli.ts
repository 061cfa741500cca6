/* npm run ledger:check — reconciles the ledger of DATABASE_URL: balances against their entries, every
 * transaction against zero, holds against pending transactions. Exit 1 when anything disagrees. */
import 'reflect-metadata';
import { loadConfig } from '../../config/config';
import { createDataSource } from '../../database/data-source';
import { LedgerService } from './ledger.service';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await createDataSource(config).initialize();
  try {
    const problems = await new LedgerService(db, config, undefined as never).reconcile();
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
