import { generateKeyPairSync } from 'node:crypto';

/** An ed25519 key pair: the public key in OpenSSH's one-line format (with Coder's trailing newline), the private key as PKCS#8 PEM. */
export function generateEd25519KeyPair(comment = ''): { publicKey: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  // The SPKI DER of an ed25519 key ends with the 32 raw key bytes.
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64');
  return {
    publicKey: `ssh-ed25519 ${blob}${comment ? ` ${comment}` : ''}\n`,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}
