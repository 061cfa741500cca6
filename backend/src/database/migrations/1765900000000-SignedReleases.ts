import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Releases as `npm run release:publish` stores them from a signed release directory: the manifest's exact text and its
 * Ed25519 signature (for the desktop app's updater), its notes, and each file's SHA-256 and kind. A file the platform
 * holds itself (RELEASES_DIR) has no stored URL: it is served under the API's public URL of the day. A release may
 * have two files of one platform and processor (the Windows .msi and .zip), so a file is unique by its name.
 *
 * The Foundation's placeholder release (0.1.0-beta3, whose files were never hosted) is removed: a platform answers
 * 404 until a real release is published. Releases stored before without a manifest stay, but are no longer served.
 */
export class SignedReleases1765900000000 implements MigrationInterface {
  name = 'SignedReleases1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `DELETE FROM releases WHERE version = '0.1.0-beta3' AND changelog_url = 'https://releases.globnetwork.io/v0.1.0-beta3/CHANGELOG.md'`,
    );
    await q.query(`
      ALTER TABLE releases
        ADD COLUMN changelog text,
        ADD COLUMN manifest text,
        ADD COLUMN signature text,
        ADD CONSTRAINT releases_manifest_signed CHECK ((manifest IS NULL) = (signature IS NULL))`);
    await q.query(`
      ALTER TABLE release_assets
        ADD COLUMN sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        ADD COLUMN format text CHECK (format IN ('deb', 'tar.gz', 'msi', 'zip')),
        ALTER COLUMN download_url DROP NOT NULL,
        DROP CONSTRAINT release_assets_release_id_platform_arch_key,
        ADD CONSTRAINT release_assets_release_id_name_key UNIQUE (release_id, name)`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Signed releases cannot be told apart by platform and processor alone, nor served without their URLs.
    await q.query(`DELETE FROM releases WHERE manifest IS NOT NULL`);
    await q.query(`
      ALTER TABLE release_assets
        DROP CONSTRAINT release_assets_release_id_name_key,
        ADD CONSTRAINT release_assets_release_id_platform_arch_key UNIQUE (release_id, platform, arch),
        ALTER COLUMN download_url SET NOT NULL,
        DROP COLUMN format,
        DROP COLUMN sha256`);
    await q.query(
      `ALTER TABLE releases DROP CONSTRAINT releases_manifest_signed, DROP COLUMN signature, DROP COLUMN manifest, DROP COLUMN changelog`,
    );
  }
}
