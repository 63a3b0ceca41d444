import { parseSecretsKey, SecretBox, SecretBoxError } from '../../../src/platform/crypto/secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 7));

  it('opens what it sealed, with the same context', () => {
    const sealed = box.seal('hunter2', 'user-secret:1:token');
    expect(sealed).not.toContain('hunter2');
    expect(box.openText(sealed, 'user-secret:1:token')).toBe('hunter2');
  });

  it('refuses another context, another key and a tampered value', () => {
    const sealed = box.seal('hunter2', 'a');
    expect(() => box.open(sealed, 'b')).toThrow(SecretBoxError);
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'a')).toThrow('sealed under another key');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('x').toString('base64url');
    expect(() => box.open(parts.join('.'), 'a')).toThrow(SecretBoxError);
    expect(() => box.open('garbage')).toThrow('not a sealed value');
  });

  it('parses hex and base64 keys of 32 bytes only', () => {
    expect(parseSecretsKey('ab'.repeat(32))?.length).toBe(32);
    expect(parseSecretsKey(Buffer.alloc(32, 1).toString('base64'))?.length).toBe(32);
    expect(parseSecretsKey(Buffer.alloc(32, 1).toString('base64url'))?.length).toBe(32);
    expect(parseSecretsKey('short')).toBeUndefined();
  });
});
