import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

export interface DeviceCodeRow {
  id: string;
  name: string;
  host: Schemas['HostFacts'];
  ip: string | null;
  created_at: Date;
  expires_at: Date;
  polled_at: Date | null;
  approved_by: string | null;
  granted_at: Date | null;
  /** Whether the codes are still valid, and seconds since the last poll (null: none yet), on the database's clock. */
  live: boolean;
  since_poll: number | null;
}

const COLUMNS = `id, name, host, ip, created_at, expires_at, polled_at, approved_by, granted_at, expires_at > now() AS live,
  extract(epoch FROM now() - polled_at)::float8 AS since_poll`;

/** The node_device_codes table: machines asking to be paired (RFC 8628), their codes stored only as hashes. */
@Injectable()
export class DeviceCodesRepository extends Repository {
  async create(
    codes: { deviceCodeHash: string; userCodeHash: string },
    machine: { name: string; host: Schemas['HostFacts']; ip: string | null },
    ttlSeconds: number,
  ): Promise<DeviceCodeRow> {
    const row = await this.one<DeviceCodeRow>(
      `INSERT INTO node_device_codes (device_code_hash, user_code_hash, name, host, ip, expires_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, now() + make_interval(secs => $6)) RETURNING ${COLUMNS}`,
      [codes.deviceCodeHash, codes.userCodeHash, machine.name, JSON.stringify(machine.host), machine.ip, ttlSeconds],
    );
    return row!;
  }

  /** A machine still waiting for its owner: unexpired and not confirmed by anyone yet. */
  pending(userCodeHash: string): Promise<DeviceCodeRow | undefined> {
    return this.one<DeviceCodeRow>(
      `SELECT ${COLUMNS} FROM node_device_codes WHERE user_code_hash = $1 AND approved_by IS NULL AND expires_at > now()`,
      [userCodeHash],
    );
  }

  /** Confirms a waiting machine for the account, once, whatever the concurrency. */
  approve(userCodeHash: string, userId: string): Promise<DeviceCodeRow | undefined> {
    return this.one<DeviceCodeRow>(
      `UPDATE node_device_codes SET approved_by = $2, approved_at = now()
       WHERE user_code_hash = $1 AND approved_by IS NULL AND expires_at > now() RETURNING ${COLUMNS}`,
      [userCodeHash, userId],
    );
  }

  /** The machine's codes, locked until the transaction ends, as they were before this poll; the poll is recorded. */
  async poll(deviceCodeHash: string, tx: Tx): Promise<DeviceCodeRow | undefined> {
    const row = await this.one<DeviceCodeRow>(
      `SELECT ${COLUMNS} FROM node_device_codes WHERE device_code_hash = $1 FOR UPDATE`,
      [deviceCodeHash],
      tx,
    );
    if (row) await this.rows(`UPDATE node_device_codes SET polled_at = now() WHERE id = $1`, [row.id], tx);
    return row;
  }

  async setGranted(id: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE node_device_codes SET granted_at = now() WHERE id = $1`, [id], tx);
  }
}
