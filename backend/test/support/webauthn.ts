import { isoCBOR } from '@simplewebauthn/server/helpers';
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software authenticator (ES256, "none" attestation) for API tests: it answers WebAuthn options as a browser and a
 * platform authenticator would, with real keys and signatures, so the server's checks run unchanged. Its counter and
 * the origin it reports can be set to act as a clone or a phishing site.
 */
export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

const b64url = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/**
 * navigator.credentials.create: a new resident ES256 credential and its RegistrationResponseJSON; given `existing`,
 * the same credential (key and id) attested again, as an authenticator ignoring excludeCredentials would.
 */
export function createCredential(
  options: { challenge: string; rp: { id?: string }; user: { id: string } },
  origin: string,
  existing?: SoftCredential,
): { credential: SoftCredential; response: Record<string, unknown> } {
  const privateKey = existing?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  const id = existing ? Buffer.from(existing.id, 'base64url') : randomBytes(16);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  const authData = Buffer.concat([sha256(options.rp.id!), Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]), u32(0), Buffer.alloc(16), idLength, id, cose]);
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]) as never,
  );
  const credential: SoftCredential = { id: b64url(id), privateKey, userHandle: options.user.id, counter: 0 };
  return {
    credential,
    response: {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    },
  };
}

/** navigator.credentials.get: an assertion over the options' challenge (AuthenticationResponseJSON). */
export function assert(
  credential: SoftCredential,
  options: { challenge: string; rpId?: string },
  origin: string,
  { counter = credential.counter + 1 }: { counter?: number } = {},
): Record<string, unknown> {
  credential.counter = counter;
  const authData = Buffer.concat([sha256(options.rpId!), Buffer.from([FLAG_UP | FLAG_UV]), u32(counter)]);
  const data = clientData('webauthn.get', options.challenge, origin);
  const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), credential.privateKey);
  return {
    id: credential.id,
    rawId: credential.id,
    type: 'public-key',
    response: {
      clientDataJSON: b64url(data),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      userHandle: credential.userHandle,
    },
    authenticatorAttachment: 'platform',
    clientExtensionResults: {},
  };
}
