import constants from '@glob/contract/constants.json';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The disk a node's agent may fill with the catalog models it pulls, in GB (the spec's NodeAllocation.disk_gb). */
export class DiskAllocation1765000000000 implements MigrationInterface {
  name = 'DiskAllocation1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const { minimum, maximum, default: initial } = constants.nodeAllocation.disk_gb;
    await q.query(
      `ALTER TABLE nodes ADD COLUMN disk_gb integer NOT NULL DEFAULT ${Number(initial)} CHECK (disk_gb BETWEEN ${Number(minimum)} AND ${Number(maximum)})`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN IF EXISTS disk_gb`);
  }
}
