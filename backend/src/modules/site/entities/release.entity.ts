import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import type { components } from '@glob/contract';
import { bigintToNumber } from '../../../database/bigint.transformer';

type AssetPlatform = components['schemas']['AssetPlatform'];
type AssetArch = components['schemas']['ReleaseAsset']['arch'];

@Entity({ name: 'releases' })
export class Release {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') version: string;
  @Column('timestamptz', { name: 'released_at' }) releasedAt: Date;
  @Column('text', { nullable: true }) notice: string | null;
  @Column('text', { name: 'changelog_url', nullable: true }) changelogUrl: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @OneToMany(() => ReleaseAsset, (asset) => asset.release, { cascade: ['insert'] }) assets: ReleaseAsset[];
}

@Entity({ name: 'release_assets' })
export class ReleaseAsset {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ManyToOne(() => Release, (release) => release.assets, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'release_id' })
  release: Release;
  @Column('text') name: string;
  @Column('text', { name: 'download_url' }) downloadUrl: string;
  @Column('text') platform: AssetPlatform;
  @Column('text') arch: AssetArch;
  @Column('bigint', { transformer: bigintToNumber }) size: number;
}
