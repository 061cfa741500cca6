/**
 * Pairing a machine without a token to copy (RFC 8628's device flow): the machine asks for codes, its owner confirms
 * the short one in the web app, and the machine's poll is answered with a join token of the owner's.
 */
import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { hashSecret, newSecret } from '../../auth/bearer-secret';
import { RateLimiter } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { DeviceCodesRepository, type DeviceCodeRow } from './device-codes.repository';
import { NodesService } from './nodes.service';

const DEVICE_CODE_PREFIX = 'glb_dev_';
const DEVICE_CODE_TTL_SECONDS = 15 * 60;
/** Seconds between two polls (RFC 8628's default); a sooner poll answers slow_down. */
const POLL_INTERVAL_SECONDS = 5;
/** 20 consonants without look-alikes: 8 of them give 2.56e10 codes, and a guesser has 20 tries per 15 minutes. */
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const NO_SUCH_CODE = 'This code is unknown or has expired. Start pairing again on the machine.';

/** The code as its owner may type it: any case, spaces or dashes. */
const normalized = (code: string) => code.toUpperCase().replace(/[^A-Z]/g, '');
const newUserCode = () => Array.from({ length: USER_CODE_LENGTH }, () => USER_CODE_LETTERS[randomInt(USER_CODE_LETTERS.length)]).join('');
const shown = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/** RFC 8628's answers to a poll before the grant, with what they tell the machine's user. */
type PollError = 'authorization_pending' | 'slow_down' | 'expired_token';
const POLL_MESSAGES: Record<PollError, string> = {
  authorization_pending: 'Waiting for the owner to confirm this machine in the web app.',
  slow_down: `Poll at most every ${POLL_INTERVAL_SECONDS} seconds.`,
  expired_token: 'This pairing code is no longer valid. Start pairing again.',
};

@Injectable()
export class DevicePairingService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly codes: DeviceCodesRepository,
    private readonly nodes: NodesService,
    private readonly limiter: RateLimiter,
    private readonly transactions: Transactions,
  ) {}

  async create(body: RequestBody<'createDeviceCode'>, ip: string | null): Promise<Schemas['DeviceCode']> {
    const deviceCode = newSecret(DEVICE_CODE_PREFIX);
    const userCode = newUserCode();
    await this.codes.create(
      { deviceCodeHash: hashSecret(deviceCode), userCodeHash: hashSecret(userCode) },
      { name: body.name, host: body.host, ip },
      DEVICE_CODE_TTL_SECONDS,
    );
    const uri = `${this.config.publicWebUrl}/app/pair`;
    return {
      device_code: deviceCode,
      user_code: shown(userCode),
      verification_uri: uri,
      verification_uri_complete: `${uri}?code=${shown(userCode)}`,
      interval: POLL_INTERVAL_SECONDS,
      expires_in: DEVICE_CODE_TTL_SECONDS,
    };
  }

  /** The machine's poll: a join token of its owner's once confirmed (once), else RFC 8628's error. */
  async exchange(body: RequestBody<'exchangeDeviceCode'>): Promise<Schemas['DeviceCodeGrant']> {
    // Decided in the transaction that records the poll, refused after it commits (a throw would undo the record).
    const outcome = await this.transactions.run(async (tx): Promise<Schemas['DeviceCodeGrant'] | PollError> => {
      const row = await this.codes.poll(hashSecret(body.device_code), tx);
      if (!row || !row.live || row.granted_at) return 'expired_token';
      if (row.since_poll !== null && row.since_poll < POLL_INTERVAL_SECONDS - 0.5) return 'slow_down';
      if (!row.approved_by) return 'authorization_pending';
      await this.codes.setGranted(row.id, tx);
      return this.nodes.issueJoinToken(row.approved_by, tx);
    });
    if (typeof outcome === 'string') throw new BadRequestException({ statusCode: 400, message: POLL_MESSAGES[outcome], error: outcome });
    return outcome;
  }

  async pending(userId: string, userCode: string): Promise<Schemas['PendingDevice']> {
    await this.countLookup(userId);
    const row = await this.codes.pending(hashSecret(normalized(userCode)));
    if (!row) throw new NotFoundException(NO_SUCH_CODE);
    return this.view(row, userCode);
  }

  async approve(userId: string, userCode: string): Promise<Schemas['PendingDevice']> {
    await this.countLookup(userId);
    const row = await this.codes.approve(hashSecret(normalized(userCode)), userId);
    if (!row) throw new NotFoundException(NO_SUCH_CODE);
    return this.view(row, userCode);
  }

  /** Lookups and confirmations count together per account: a guesser of other machines' codes is slowed down. */
  private async countLookup(userId: string): Promise<void> {
    const { limit, windowSeconds } = this.config.rateLimits.deviceCodeLookup;
    const retryAfter = await this.limiter.hit('device-code-lookup', userId, limit, windowSeconds);
    if (retryAfter !== null) throw new RateLimitedException(retryAfter);
  }

  private view(row: DeviceCodeRow, userCode: string): Schemas['PendingDevice'] {
    return {
      user_code: shown(normalized(userCode)),
      name: row.name,
      host: row.host,
      ip: row.ip,
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
    };
  }
}
