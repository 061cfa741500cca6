/* Migration commands: `tsx src/database/cli.ts migrate|revert|status` (make db-migrate runs `migrate`). */
import 'reflect-metadata';
import { loadConfig } from '../config/config';
import { createDataSource } from './data-source';

async function main(command: string | undefined): Promise<void> {
  const dataSource = await createDataSource(loadConfig()).initialize();
  try {
    if (command === 'migrate') {
      const ran = await dataSource.runMigrations({ transaction: 'each' });
      console.log(ran.length ? `Applied ${ran.map((m) => m.name).join(', ')}` : 'Database is up to date');
    } else if (command === 'revert') {
      await dataSource.undoLastMigration({ transaction: 'each' });
      console.log('Reverted the last migration');
    } else if (command === 'status') {
      const pending = await dataSource.showMigrations();
      console.log(pending ? 'Migrations are pending' : 'Database is up to date');
      process.exitCode = pending ? 1 : 0;
    } else {
      console.error('usage: cli.ts migrate|revert|status');
      process.exitCode = 2;
    }
  } finally {
    await dataSource.destroy();
  }
}

main(process.argv[2]).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
