import { z } from 'zod';
import type { Schemas } from '../../contract/types';

/** The files of a release directory (what `make release` writes beside the assets). */
export const RELEASE_MANIFEST_FILE = 'release-manifest.json';
export const RELEASE_SIGNATURE_FILE = 'release-manifest.json.sig';
export const RELEASE_PUBLIC_KEY_FILE = 'release-public-key.pem';

/** A release version: semver without a leading `v` (the releases table checks the same). */
export const RELEASE_VERSION = /^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$/;
/** A release file's name: one path segment, never hidden, so it can name a file in RELEASES_DIR/<version>/. */
export const RELEASE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,254}$/;

/** Which kinds of file each platform's assets may be (the .deb is its own platform, `linux-deb`). */
const FORMATS: Record<Schemas['AssetPlatform'], Array<Schemas['AssetFormat']>> = {
  windows: ['msi', 'zip'],
  macos: ['zip'],
  linux: ['tar.gz'],
  'linux-deb': ['deb'],
};

const asset = z
  .object({
    name: z.string().regex(RELEASE_FILE_NAME, 'a file name (letters, digits, . _ + -; no folders)'),
    platform: z.enum(['windows', 'macos', 'linux', 'linux-deb']),
    arch: z.enum(['x64', 'arm64', 'universal']),
    format: z.enum(['deb', 'tar.gz', 'msi', 'zip']),
    size: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits'),
  })
  .refine((a) => FORMATS[a.platform].includes(a.format), { message: 'a format its platform does not ship', path: ['format'] });

/** release-manifest.json, as ReleaseManifestContent in the spec describes it. */
const manifest = z
  .object({
    schema: z.literal(1),
    product: z.literal('glob-network'),
    version: z.string().regex(RELEASE_VERSION, 'a semantic version such as 0.2.0 or 0.2.0-beta1'),
    released_at: z.iso.datetime({ offset: true }),
    prerelease: z.boolean(),
    changelog: z.string(),
    assets: z.array(asset).min(1),
  })
  .refine((m) => m.prerelease === /^[^+]*-/.test(m.version), {
    message: 'must be true exactly when the version has a prerelease part',
    path: ['prerelease'],
  })
  .refine((m) => new Set(m.assets.map((a) => a.name)).size === m.assets.length, { message: 'two files of one name', path: ['assets'] });

export type ReleaseManifest = z.infer<typeof manifest>;

/** The manifest in `text`, or an error naming every problem. */
export function parseReleaseManifest(text: string): ReleaseManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${RELEASE_MANIFEST_FILE} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = manifest.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(the manifest)'}: ${i.message}`);
    throw new Error(`${RELEASE_MANIFEST_FILE} is not a release manifest:\n${issues.join('\n')}`);
  }
  return parsed.data;
}
