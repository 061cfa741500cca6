import { MigrationInterface, QueryRunner } from 'typeorm';

/** Provider nodes: join tokens, node credentials, pause and allocation, measured speed, uptime. */
export class ProviderNodes1764300000000 implements MigrationInterface {
  name = 'ProviderNodes1764300000000';

  async up(_q: QueryRunner): Promise<void> {}

  async down(_q: QueryRunner): Promise<void> {}
}
