import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The first schema: the public site's tables, plus the first columns of the tables whose figures
 * the platform statistics count (users, worker nodes, inference tasks). Later migrations extend them.
 */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text,
        username text,
        password_hash text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CONSTRAINT users_email_present CHECK (deleted_at IS NOT NULL OR email IS NOT NULL)
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email)) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE nodes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid REFERENCES users(id) ON DELETE SET NULL,
        name text NOT NULL,
        host text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX nodes_last_seen_at_idx ON nodes (last_seen_at)`);

    await q.query(`
      CREATE TABLE inference_tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid REFERENCES users(id) ON DELETE SET NULL,
        node_id uuid REFERENCES nodes(id) ON DELETE SET NULL,
        model_id text NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        prompt_tokens integer NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
        completion_tokens integer NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
        bytes_processed bigint NOT NULL DEFAULT 0 CHECK (bytes_processed >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX inference_tasks_status_idx ON inference_tasks (status)`);

    await q.query(`
      CREATE TABLE releases (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        version text NOT NULL UNIQUE CHECK (version ~ '^[0-9]+\\.[0-9]+\\.[0-9]+([-+][0-9A-Za-z.-]+)?$'),
        released_at timestamptz NOT NULL,
        notice text,
        changelog_url text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX releases_released_at_idx ON releases (released_at DESC)`);
    await q.query(`
      CREATE TABLE release_assets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
        name text NOT NULL,
        download_url text NOT NULL,
        platform text NOT NULL CHECK (platform IN ('windows', 'macos', 'linux', 'linux-deb')),
        arch text NOT NULL CHECK (arch IN ('x64', 'arm64', 'universal')),
        size bigint NOT NULL CHECK (size >= 0),
        UNIQUE (release_id, platform, arch)
      )`);

    await q.query(`
      CREATE TABLE download_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        platform text NOT NULL CHECK (platform IN ('windows', 'macos', 'linux', 'linux-deb')),
        asset text NOT NULL,
        client_timestamp timestamptz,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE download_counts (
        platform text PRIMARY KEY CHECK (platform IN ('windows', 'macos', 'linux', 'linux-deb')),
        downloads bigint NOT NULL DEFAULT 0 CHECK (downloads >= 0)
      )`);

    await q.query(`
      CREATE TABLE contact_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        email text NOT NULL,
        subject text NOT NULL CHECK (subject IN ('general', 'support', 'feedback', 'partnership', 'other')),
        message text NOT NULL,
        agreed_to_terms boolean NOT NULL CHECK (agreed_to_terms),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE testimonials (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        email text NOT NULL,
        role text,
        message text NOT NULL,
        rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
        consent boolean NOT NULL CHECK (consent),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    // The release the downloads page falls back to (version, date, assets), so it has real data from day one.
    const base = 'https://releases.globnetwork.io/v0.1.0-beta3';
    const [release] = (await q.query(
      `INSERT INTO releases (version, released_at, notice, changelog_url)
       VALUES ('0.1.0-beta3', '2025-06-04T00:00:00Z', NULL, $1) RETURNING id`,
      [`${base}/CHANGELOG.md`],
    )) as Array<{ id: string }>;
    const assets: Array<[string, string, string, number]> = [
      ['GlobNetwork-Setup-0.1.0-beta3.exe', 'windows', 'x64', 125829120],
      ['GlobNetwork-0.1.0-beta3-universal.dmg', 'macos', 'universal', 92216776],
      ['GlobNetwork-0.1.0-beta3.AppImage', 'linux', 'x64', 139460608],
      ['globnetwork_0.1.0-beta3_amd64.deb', 'linux-deb', 'x64', 139460608],
    ];
    for (const [name, platform, arch, size] of assets) {
      await q.query(`INSERT INTO release_assets (release_id, name, download_url, platform, arch, size) VALUES ($1, $2, $3, $4, $5, $6)`, [
        release!.id,
        name,
        `${base}/${name}`,
        platform,
        arch,
        size,
      ]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'testimonials',
      'contact_messages',
      'download_counts',
      'download_events',
      'release_assets',
      'releases',
      'inference_tasks',
      'nodes',
      'users',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
