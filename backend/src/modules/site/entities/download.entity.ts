import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { components } from '@glob/contract';
import { bigintToNumber } from '../../../database/bigint.transformer';

type AssetPlatform = components['schemas']['AssetPlatform'];

@Entity({ name: 'download_events' })
export class DownloadEvent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') platform: AssetPlatform;
  @Column('text') asset: string;
  @Column('timestamptz', { name: 'client_timestamp', nullable: true }) clientTimestamp: Date | null;
  @Column('text', { name: 'user_agent', nullable: true }) userAgent: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** One row per platform, bumped in the same transaction as each DownloadEvent insert. */
@Entity({ name: 'download_counts' })
export class DownloadCount {
  @PrimaryColumn('text') platform: AssetPlatform;
  @Column('bigint', { transformer: bigintToNumber }) downloads: number;
}
