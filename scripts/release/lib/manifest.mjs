// The release's signed manifest: release-manifest.json (its exact bytes are what is signed), its Ed25519 signature
// (release-manifest.json.sig, base64 on one line) and the public key that verifies it (release-public-key.pem).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEV_KEY_FILE, VERSION_PATTERN } from './config.mjs';
import { shout } from './util.mjs';

export const MANIFEST = 'release-manifest.json';
export const SIGNATURE = 'release-manifest.json.sig';
export const PUBLIC_KEY = 'release-public-key.pem';

/**
 * The signing key: RELEASE_SIGNING_KEY (PKCS8 PEM text), RELEASE_SIGNING_KEY_FILE, or else this machine's
 * development key (made once, mode 0600), which only installs built against it trust.
 */
export function signingKey(env = process.env) {
  let pem;
  let source;
  if (env.RELEASE_SIGNING_KEY) {
    pem = env.RELEASE_SIGNING_KEY;
    source = 'RELEASE_SIGNING_KEY';
  } else if (env.RELEASE_SIGNING_KEY_FILE) {
    pem = readFileSync(env.RELEASE_SIGNING_KEY_FILE, 'utf8');
    source = env.RELEASE_SIGNING_KEY_FILE;
  } else {
    const made = !existsSync(DEV_KEY_FILE);
    if (made) {
      mkdirSync(dirname(DEV_KEY_FILE), { recursive: true, mode: 0o700 });
      const { privateKey } = generateKeyPairSync('ed25519');
      writeFileSync(DEV_KEY_FILE, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      chmodSync(DEV_KEY_FILE, 0o600);
    }
    pem = readFileSync(DEV_KEY_FILE, 'utf8');
    source = `the DEVELOPMENT key ${DEV_KEY_FILE}${made ? ' (made now)' : ''}`;
    devKeyWarning(source);
  }
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`${source} is a ${privateKey.asymmetricKeyType} key; releases are signed with Ed25519`);
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' });
  return { privateKey, publicKeyPem, source, dev: !env.RELEASE_SIGNING_KEY && !env.RELEASE_SIGNING_KEY_FILE };
}

export function devKeyWarning(source) {
  shout([
    `No RELEASE_SIGNING_KEY or RELEASE_SIGNING_KEY_FILE: signed with ${source}.`,
    'Only bundles built with it trust it: never publish this release.',
  ]);
}

/** The manifest's text, its fields in the contract's order. `assets`: { name, platform, arch, format, size, sha256 }. */
export function manifestText({ version, releasedAt, changelog, assets }) {
  const manifest = {
    schema: 1,
    product: 'glob-network',
    version,
    released_at: releasedAt,
    prerelease: VERSION_PATTERN.exec(version)[4] !== undefined,
    changelog,
    assets: assets.map(({ name, platform, arch, format, size, sha256 }) => ({ name, platform, arch, format, size, sha256 })),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The base64 Ed25519 signature of the manifest's exact bytes. */
export const signManifest = (text, privateKey) => sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64');

export function verifyManifest(bytes, signatureBase64, publicKeyPem) {
  return verify(null, Buffer.from(bytes), createPublicKey(publicKeyPem), Buffer.from(signatureBase64.trim(), 'base64'));
}
