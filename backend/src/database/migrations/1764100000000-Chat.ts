import { MigrationInterface, QueryRunner } from 'typeorm';

/** Conversations and their messages; trigram indexes keep case-insensitive substring search fast. */
export class Chat1764100000000 implements MigrationInterface {
  name = 'Chat1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        title text NOT NULL CHECK (length(btrim(title)) BETWEEN 1 AND 200),
        model_id text NOT NULL,
        is_pinned boolean NOT NULL DEFAULT false,
        total_messages integer NOT NULL DEFAULT 0,
        total_tokens integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX conversations_list_idx ON conversations (user_id, is_pinned DESC, updated_at DESC, id DESC)`);
    await q.query(`CREATE INDEX conversations_title_trgm ON conversations USING gin (lower(title) gin_trgm_ops)`);
    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL,
        status text NOT NULL CHECK (status IN ('sending', 'sent', 'streaming', 'error')),
        model text,
        tokens integer NOT NULL DEFAULT 0 CHECK (tokens >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX messages_conversation_idx ON messages (conversation_id, created_at, seq)`);
    await q.query(`CREATE INDEX messages_content_trgm ON messages USING gin (lower(content) gin_trgm_ops)`);
    await q.query(`ALTER TABLE inference_tasks ADD COLUMN conversation_id uuid REFERENCES conversations(id) ON DELETE SET NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inference_tasks DROP COLUMN IF EXISTS conversation_id`);
    await q.query(`DROP TABLE IF EXISTS messages`);
    await q.query(`DROP TABLE IF EXISTS conversations`);
  }
}
