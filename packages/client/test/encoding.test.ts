import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bodyBytes, concatBytes, hexToBytes } from '../src/encoding.js';

// Checked against Node.js's own Buffer codecs, which the src cannot use (it also runs in browsers).

describe('hexToBytes', () => {
  it('decodes either case to the bytes Buffer decodes', () => {
    const bytes = randomBytes(32);
    const hex = bytes.toString('hex');
    expect(hexToBytes(hex)).toEqual(new Uint8Array(bytes));
    expect(hexToBytes(hex.toUpperCase())).toEqual(new Uint8Array(bytes));
    expect(hexToBytes('')).toEqual(new Uint8Array(0));
  });

  it.each(['0', 'abc', 'zz', ' 00', '00 ', '0x00', '+0'])('refuses %j', (hex) => {
    expect(hexToBytes(hex)).toBeUndefined();
  });
});

describe('base64ToBytes', () => {
  it('decodes padded and unpadded standard base64 to the bytes Buffer decodes', () => {
    for (const length of [0, 1, 2, 3, 31, 32, 33]) {
      const bytes = randomBytes(length);
      const padded = bytes.toString('base64');
      expect(base64ToBytes(padded), padded).toEqual(new Uint8Array(bytes));
      expect(base64ToBytes(padded.replace(/=+$/, '')), padded).toEqual(new Uint8Array(bytes));
    }
  });

  it.each(['A', 'AAAAA', 'AB=', 'A===', 'AA=A', 'AA AA', ' AAAA', 'AA-_', 'AA==AA==', '====='])(
    'refuses %j',
    (text) => {
      expect(base64ToBytes(text)).toBeUndefined();
    },
  );
});

describe('bodyBytes', () => {
  it('encodes a string as UTF-8 and keeps bytes as they are', () => {
    const utf8 = Buffer.from('Société Générale', 'utf8');
    expect(bodyBytes('Société Générale', 'test')).toEqual(new Uint8Array(utf8));
    expect(bodyBytes(utf8, 'test')).toBe(utf8);
    expect(bodyBytes(new Uint8Array(utf8).buffer, 'test')).toEqual(new Uint8Array(utf8));
  });

  it('throws a TypeError naming the caller for anything else, without echoing the value', () => {
    expect(() => bodyBytes({ secret: 'x' } as never, 'verifyX')).toThrow(
      new TypeError(
        'verifyX: rawBody must be the raw request body as a string, Uint8Array (or Buffer) or ArrayBuffer, not an Object',
      ),
    );
  });
});

describe('concatBytes', () => {
  it('joins two arrays in order', () => {
    expect(concatBytes(Uint8Array.of(1, 2), Uint8Array.of(3))).toEqual(Uint8Array.of(1, 2, 3));
  });
});
