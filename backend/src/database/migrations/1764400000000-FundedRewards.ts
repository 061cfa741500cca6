import { MigrationInterface, QueryRunner } from 'typeorm';

/** Funded rewards: pending node rewards paid after the settlement window from the rewards account, and its emission. */
export class FundedRewards1764400000000 implements MigrationInterface {
  name = 'FundedRewards1764400000000';

  async up(_q: QueryRunner): Promise<void> {}

  async down(_q: QueryRunner): Promise<void> {}
}
