import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** A passkey as stored. */
export interface PasskeyRow {
  id: string;
  userId: string;
  /** base64url, as WebAuthn names the credential. */
  credentialId: string;
  /** The COSE public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface Row {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at, last_used_at';

const toRow = (r: Row): PasskeyRow => ({
  id: r.id,
  userId: r.user_id,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key.buffer.slice(r.public_key.byteOffset, r.public_key.byteOffset + r.public_key.byteLength) as ArrayBuffer),
  counter: Number(r.counter),
  transports: r.transports,
  deviceType: r.device_type,
  backedUp: r.backed_up,
  name: r.name,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export type NewPasskey = Pick<PasskeyRow, 'userId' | 'credentialId' | 'publicKey' | 'counter' | 'transports' | 'deviceType' | 'backedUp' | 'name'>;

/** The passkeys table. */
@Injectable()
export class PasskeysRepository extends Repository {
  async listOf(userId: string, tx?: Tx): Promise<PasskeyRow[]> {
    return (await this.rows<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId], tx)).map(toRow);
  }

  async countOf(userId: string, tx?: Tx): Promise<number> {
    return (await this.one<{ n: number }>(`SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1`, [userId], tx))?.n ?? 0;
  }

  async byCredentialId(credentialId: string, tx?: Tx): Promise<PasskeyRow | undefined> {
    const row = await this.one<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`, [credentialId], tx);
    return row && toRow(row);
  }

  /** The new passkey; undefined when the credential is registered already. */
  async add(p: NewPasskey, tx?: Tx): Promise<PasskeyRow | undefined> {
    const row = await this.one<Row>(
      `INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, device_type, backed_up, name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (credential_id) DO NOTHING RETURNING ${COLUMNS}`,
      [p.userId, p.credentialId, Buffer.from(p.publicKey), p.counter, p.transports, p.deviceType, p.backedUp, p.name],
      tx,
    );
    return row && toRow(row);
  }

  /**
   * Records a sign-in with the passkey and its new counter; false when another sign-in moved the counter to or past
   * it meanwhile (a counter must grow unless the authenticator keeps none, i.e. both are zero).
   */
  async recordUse(id: string, counter: number, backedUp: boolean, tx?: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE passkeys SET counter = $2, backed_up = $3, last_used_at = now()
         WHERE id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0)) RETURNING id`,
        [id, counter, backedUp],
        tx,
      )) === 1
    );
  }

  async rename(userId: string, id: string, name: string, tx?: Tx): Promise<PasskeyRow | undefined> {
    const row = await this.one<Row>(`UPDATE passkeys SET name = $3 WHERE id = $2 AND user_id = $1 RETURNING ${COLUMNS}`, [userId, id, name], tx);
    return row && toRow(row);
  }

  async remove(userId: string, id: string, tx?: Tx): Promise<boolean> {
    return (await this.count(`DELETE FROM passkeys WHERE id = $2 AND user_id = $1 RETURNING id`, [userId, id], tx)) === 1;
  }

  async removeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM passkeys WHERE user_id = $1`, [userId], tx);
  }
}
